package sso_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/sso"
	"github.com/auxilia/sandboxes/pkg/sso/ssotest"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// The callback is never called here: the test takes the code the provider
// sends back, and gives it to the service with the ID token as it wants it.
const testRedirect = "http://127.0.0.1:9/auth/oidc/callback"

// rewriteIDToken changes the id_token of the provider's token answers.
type rewriteIDToken func(string) string

func (f rewriteIDToken) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || !strings.HasSuffix(req.URL.Path, "/token") {
		return res, err
	}
	var body map[string]any
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if err := json.Unmarshal(raw, &body); err == nil {
		if idt, ok := body["id_token"].(string); ok {
			body["id_token"] = f(idt)
		}
		raw, _ = json.Marshal(body)
	}
	res.Body = io.NopCloser(bytes.NewReader(raw))
	res.ContentLength = int64(len(raw))
	res.Header.Del("Content-Length")
	return res, nil
}

func TestCallbackChecksTheIDToken(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		idp := ssotest.Start(t, testRedirect, map[string]ssotest.Account{
			"dana": {Email: "dana@example.com", Name: "Dana", Groups: []string{"devs"}},
		})
		keys, err := secret.ParseKeys(secret.NewKey())
		require.NoError(t, err)
		svc := sso.New(idp.Config(testRedirect, sso.GroupRoles{"devs": {{Workspace: "default", Role: auxilia.RoleMember}}}),
			db.System("sign-in").People(), db.System("workspaces").Workspaces(), db, db.System("audit").Audit(), keys)
		ctx := context.Background()
		signIn := func(rewrite rewriteIDToken, later time.Duration) error {
			sso.SetClock(svc, time.Now)
			authURL, cookie, err := svc.Login(ctx, "")
			require.NoError(t, err)
			code, state := ssotest.Authorize(t, ssotest.Browser(t), authURL, testRedirect, "dana")
			sso.SetClock(svc, func() time.Time { return time.Now().Add(later) })
			client := &http.Client{Transport: rewrite}
			_, err = svc.Callback(context.WithValue(ctx, oauth2.HTTPClient, client), cookie, state, code)
			return err
		}
		same := func(s string) string { return s }

		require.NoError(t, signIn(same, 0), "the token as the provider sent it")

		tampered := signIn(func(s string) string {
			parts := strings.Split(s, ".")
			payload, err := base64.RawURLEncoding.DecodeString(parts[1])
			require.NoError(t, err)
			forged := bytes.Replace(payload, []byte(`"devs"`), []byte(`"admins"`), 1) // another payload, the same signature
			require.NotEqual(t, payload, forged)
			return parts[0] + "." + base64.RawURLEncoding.EncodeToString(forged) + "." + parts[2]
		}, 0)
		assert.True(t, auxilia.IsCode(tampered, auxilia.CodeUnauthorized), "%v", tampered)
		assert.ErrorContains(t, tampered, "ID token is not valid")

		unsigned := signIn(func(s string) string {
			parts := strings.Split(s, ".")
			return parts[0] + "." + parts[1] + "."
		}, 0)
		assert.ErrorContains(t, unsigned, "ID token is not valid")

		// The provider's ID tokens last 60 seconds: five minutes later it has expired
		// (while the sign-in itself, good for ten, has not).
		expired := signIn(same, 5*time.Minute)
		assert.ErrorContains(t, expired, "ID token is not valid")

		missing := signIn(func(string) string { return "" }, 0)
		assert.ErrorContains(t, missing, "no ID token")
	})
}

func TestParseGroupRoles(t *testing.T) {
	g, err := sso.ParseGroupRoles(" platform=default:admin, devs=default:member,devs=staging:admin ")
	require.NoError(t, err)
	assert.Equal(t, map[string]auxilia.Role{"default": auxilia.RoleAdmin, "staging": auxilia.RoleAdmin},
		g.Roles([]string{"devs", "platform"}))
	assert.Equal(t, map[string]auxilia.Role{"default": auxilia.RoleMember, "staging": auxilia.RoleAdmin},
		g.Roles([]string{"devs", "unknown"}))
	for _, bad := range []string{"", "devs", "devs=default", "devs=default:owner", "=default:admin", "devs=:admin"} {
		_, err := sso.ParseGroupRoles(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// A session ends after its idle time without use, counted from its last
// use, and after its absolute lifetime however used.
func TestSessionsEndWhenIdleOrOld(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		idp := ssotest.Start(t, testRedirect, map[string]ssotest.Account{
			"erin": {Email: "erin@example.com", Name: "Erin", Groups: []string{"devs"}},
		})
		keys, err := secret.ParseKeys(secret.NewKey())
		require.NoError(t, err)
		cfg := idp.Config(testRedirect, sso.GroupRoles{"devs": {{Workspace: "default", Role: auxilia.RoleMember}}})
		cfg.Idle, cfg.Lifetime, cfg.Refresh = time.Hour, 3*time.Hour, 24*time.Hour // no refresh in this test
		svc := sso.New(cfg, db.System("sign-in").People(), db.System("workspaces").Workspaces(), db, db.System("audit").Audit(), keys)
		ctx := context.Background()
		start := time.Now()
		at := func(d time.Duration) { sso.SetClock(svc, func() time.Time { return start.Add(d) }) }
		signIn := func() string {
			at(0)
			authURL, cookie, err := svc.Login(ctx, "")
			require.NoError(t, err)
			code, state := ssotest.Authorize(t, ssotest.Browser(t), authURL, testRedirect, "erin")
			signed, err := svc.Callback(ctx, cookie, state, code)
			require.NoError(t, err)
			return signed.Value
		}

		idle := signIn()
		at(61 * time.Minute)
		_, err = svc.Authenticate(ctx, idle)
		assert.ErrorContains(t, err, "session has ended", "unused for over an hour")

		used := signIn()
		for _, d := range []time.Duration{50 * time.Minute, 100 * time.Minute, 150 * time.Minute} {
			at(d)
			cur, err := svc.Authenticate(ctx, used)
			require.NoError(t, err, "used every 50 minutes, at %s", d)
			assert.Equal(t, "erin@example.com", cur.Actor.UserName)
		}
		at(3*time.Hour + time.Minute)
		_, err = svc.Authenticate(ctx, used)
		assert.ErrorContains(t, err, "session has ended", "past its lifetime")

		_, err = svc.Authenticate(ctx, sso.SessionPrefix+"unknown")
		assert.ErrorContains(t, err, "session has ended")
	})
}
