package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/api"
	"github.com/auxilia/sandboxes/pkg/sso"
	"github.com/auxilia/sandboxes/pkg/sso/ssotest"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ssoEnv is a server with single sign-on against a real provider.
type ssoEnv struct {
	*env
	idp *ssotest.IdP
}

var testAccounts = map[string]ssotest.Account{
	"alice": {Email: "alice@example.com", Name: "Alice Admin", Groups: []string{"aux-admins"}},
	"bob":   {Email: "bob@example.com", Name: "Bob Builder", Groups: []string{"aux-devs", "unrelated"}},
	"carol": {Email: "carol@example.com", Name: "Carol Elsewhere", Groups: []string{"unrelated"}},
}

func newSSOEnv(t *testing.T, refresh time.Duration, run func(t *testing.T, e ssoEnv)) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		{
			var idp *ssotest.IdP
			e := newEnv(t, db, func(o *options) {
				o.oidc = func(redirect string) sso.Config {
					idp = ssotest.Start(t, redirect, testAccounts)
					cfg := idp.Config(redirect, ssotest.Groups(map[string]string{
						"aux-admins": "default:admin", "aux-devs": "default:member"}))
					if refresh > 0 {
						cfg.Refresh = refresh
					}
					return cfg
				}
			})
			run(t, ssoEnv{env: e, idp: idp})
		}
	})
}

// as sends a request from the browser, with its cookies and, when csrf,
// the CSRF token the console would send; the answer is checked against openapi.yaml.
func (e ssoEnv) as(browser *http.Client, method, path string, body string, csrf bool) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	require.NoError(e.t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if csrf {
		req.Header.Set(api.HeaderCSRF, cookieOf(e.t, browser, e.srv.URL, api.CSRFCookie))
	}
	res, err := browser.Do(req)
	require.NoError(e.t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	checkAgainstSpec(e.t, req, res, out)
	return response{Response: res, body: out}
}

func cookieOf(t *testing.T, browser *http.Client, server, name string) string {
	u, err := url.Parse(server)
	require.NoError(t, err)
	for _, c := range browser.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

func (e ssoEnv) signIn(subject string) (*http.Client, *http.Response) {
	e.t.Helper()
	browser := ssotest.Browser(e.t)
	res := ssotest.SignIn(e.t, browser, e.srv.URL, subject)
	res.Body.Close()
	return browser, res
}

func TestSignInWithTheIdentityProvider(t *testing.T) {
	newSSOEnv(t, 0, func(t *testing.T, e ssoEnv) {
		cfg := e.call("GET", "/auth/config", "", nil).json(t)
		assert.Equal(t, true, cfg["oidc"])
		assert.Equal(t, "Test IdP", cfg["provider_name"])

		alice, res := e.signIn("alice")
		require.Equal(t, http.StatusFound, res.StatusCode)
		assert.Equal(t, "/", res.Header.Get("Location"))
		var session *http.Cookie
		for _, c := range res.Cookies() {
			if c.Name == api.SessionCookie {
				session = c
			}
		}
		require.NotNil(t, session)
		assert.True(t, session.HttpOnly)
		assert.False(t, session.Secure, "a loopback callback is plain HTTP")
		assert.Equal(t, http.SameSiteLaxMode, session.SameSite)
		assert.True(t, strings.HasPrefix(session.Value, sso.SessionPrefix))

		me := e.as(alice, "GET", "/api/v1/me", "", false).json(t)
		assert.Equal(t, "admin", me["role"])
		assert.Equal(t, "", me["token_id"])
		assert.Equal(t, "alice@example.com", me["name"])
		assert.Equal(t, "default", me["workspace"].(map[string]any)["name"])
		assert.Equal(t, "Alice Admin", me["user"].(map[string]any)["name"])

		// A change needs the CSRF token; with it, the token made names its maker in the audit log.
		refused := e.as(alice, "POST", "/api/v1/tokens", `{"name":"ci"}`, false)
		assert.Equal(t, http.StatusForbidden, refused.StatusCode, "%s", refused.body)
		assert.Contains(t, string(refused.body), "X-CSRF-Token")
		made := e.as(alice, "POST", "/api/v1/tokens", `{"name":"ci"}`, true)
		require.Equal(t, http.StatusCreated, made.StatusCode, "%s", made.body)
		var createdBy []string
		for _, tok := range e.as(alice, "GET", "/api/v1/tokens", "", false).json(t)["items"].([]any) {
			createdBy = append(createdBy, tok.(map[string]any)["name"].(string)+" by "+tok.(map[string]any)["created_by"].(string))
		}
		assert.Contains(t, createdBy, "ci by alice@example.com")
		assert.Contains(t, createdBy, "admin@default by ", "made on the command line")
		entries := e.call("GET", "/api/v1/audit?action=token.create", e.admin, nil).json(t)["items"].([]any)
		var byAlice []string
		for _, it := range entries {
			a := it.(map[string]any)["actor"].(map[string]any)
			if a["user_name"] == "alice@example.com" {
				byAlice = append(byAlice, it.(map[string]any)["outcome"].(string))
			}
		}
		assert.ElementsMatch(t, []string{"success", "denied"}, byAlice)

		// The token still works as before, cookie or not.
		assert.Equal(t, http.StatusOK, e.call("GET", "/api/v1/me", e.member, nil).StatusCode)

		// A member from their group; a person whose groups give nothing is refused at the callback.
		bob, _ := e.signIn("bob")
		assert.Equal(t, "member", e.as(bob, "GET", "/api/v1/me", "", false).json(t)["role"])
		assert.Equal(t, http.StatusForbidden, e.as(bob, "GET", "/api/v1/tokens", "", false).StatusCode)
		_, res = e.signIn("carol")
		assert.Equal(t, http.StatusFound, res.StatusCode)
		assert.Equal(t, "/?sign_in_failed=no_workspace", res.Header.Get("Location"), "back to the sign-in screen, which says why")

		people := e.as(alice, "GET", "/api/v1/workspace/people", "", false).json(t)["items"].([]any)
		var emails []string
		for _, p := range people {
			emails = append(emails, p.(map[string]any)["email"].(string)+" "+p.(map[string]any)["role"].(string))
		}
		assert.ElementsMatch(t, []string{"alice@example.com admin", "bob@example.com member"}, emails)

		// Signing out needs the CSRF token too, and ends the session for good.
		assert.Equal(t, http.StatusForbidden, e.as(alice, "POST", "/auth/logout", "", false).StatusCode)
		stolen := cookieOf(t, alice, e.srv.URL, api.SessionCookie)
		assert.Equal(t, http.StatusNoContent, e.as(alice, "POST", "/auth/logout", "", true).StatusCode)
		assert.Equal(t, "", cookieOf(t, alice, e.srv.URL, api.SessionCookie))
		replay := e.send("GET", "/api/v1/me", "", nil, "Cookie", api.SessionCookie+"="+stolen)
		assert.Equal(t, http.StatusUnauthorized, replay.StatusCode)

		var sessions []string
		for _, it := range e.call("GET", "/api/v1/audit?resource_type=user", e.admin, nil).json(t)["items"].([]any) {
			entry := it.(map[string]any)
			sessions = append(sessions, entry["action"].(string)+" by "+entry["actor"].(map[string]any)["user_name"].(string))
		}
		assert.ElementsMatch(t, []string{"session.signin by alice@example.com", "session.signin by bob@example.com",
			"session.signout by alice@example.com"}, sessions)
	})
}

func TestSignInRefusesAWrongState(t *testing.T) {
	newSSOEnv(t, 0, func(t *testing.T, e ssoEnv) {
		browser := ssotest.Browser(t)
		browser.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := browser.Get(e.srv.URL + "/auth/oidc/login")
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusFound, res.StatusCode)
		to, err := url.Parse(res.Header.Get("Location"))
		require.NoError(t, err)
		assert.Equal(t, "S256", to.Query().Get("code_challenge_method"))
		assert.NotEmpty(t, to.Query().Get("nonce"))

		// Refused, the browser goes back to the sign-in screen with the reason's code, no session made.
		refused := func(r response) {
			t.Helper()
			assert.Equal(t, http.StatusFound, r.StatusCode)
			assert.Equal(t, "/?sign_in_failed=refused", r.Header.Get("Location"))
			for _, c := range r.Cookies() {
				assert.NotEqual(t, api.SessionCookie, c.Name)
			}
		}
		refused(e.as(browser, "GET", "/auth/oidc/callback?code=x&state=not-"+to.Query().Get("state"), "", false))
		// Without the sign-in's cookie (it was used once, above), the right state is refused too.
		refused(e.as(browser, "GET", "/auth/oidc/callback?code=x&state="+url.QueryEscape(to.Query().Get("state")), "", false))
		refused(e.as(browser, "GET", "/auth/oidc/callback?error=access_denied&state=x", "", false))
	})
}

// A provider that rotates its signing key is followed: an ID token signed
// with a key the server has not seen makes it fetch the provider's JWKS
// again, rather than refusing everyone until a restart.
func TestSignInFollowsTheProvidersKeyRotation(t *testing.T) {
	newSSOEnv(t, 0, func(t *testing.T, e ssoEnv) {
		alice, res := e.signIn("alice")
		require.Equal(t, http.StatusFound, res.StatusCode)
		require.Equal(t, http.StatusOK, e.as(alice, "GET", "/api/v1/me", "", false).StatusCode)

		before := e.idp.KeyIDs()
		e.idp.RotateKeys()
		require.NotEmpty(t, before)
		assert.NotContains(t, e.idp.KeyIDs(), before[0], "the key the server saw is gone from the JWKS")
		again, res := e.signIn("alice")
		require.Equal(t, http.StatusFound, res.StatusCode, "the ID token signed with the new key is taken")
		assert.Equal(t, "/", res.Header.Get("Location"))
		me := e.as(again, "GET", "/api/v1/me", "", false)
		require.Equal(t, http.StatusOK, me.StatusCode, "%s", me.body)
		assert.Equal(t, "Alice Admin", me.json(t)["user"].(map[string]any)["name"])
	})
}

func TestSessionsFollowTheProvider(t *testing.T) {
	const refresh = 700 * time.Millisecond
	newSSOEnv(t, refresh, func(t *testing.T, e ssoEnv) {
		bob, _ := e.signIn("bob")
		require.Equal(t, "member", e.as(bob, "GET", "/api/v1/me", "", false).json(t)["role"])

		// Made an admin at the provider: admin after the next refresh.
		e.idp.SetAccount("bob", ssotest.Account{Email: "bob@example.com", Name: "Bob", Groups: []string{"aux-admins"}})
		time.Sleep(refresh + 100*time.Millisecond)
		assert.Equal(t, "admin", e.as(bob, "GET", "/api/v1/me", "", false).json(t)["role"])

		// Out of every group: no access at the next request after the refresh.
		e.idp.SetAccount("bob", ssotest.Account{Email: "bob@example.com", Name: "Bob", Groups: nil})
		time.Sleep(refresh + 100*time.Millisecond)
		gone := e.as(bob, "GET", "/api/v1/me", "", false)
		assert.Equal(t, http.StatusUnauthorized, gone.StatusCode, "%s", gone.body)
		assert.Contains(t, string(gone.body), "no longer give you workspace")
		people := e.call("GET", "/api/v1/workspace/people", e.admin, nil).json(t)["items"].([]any)
		assert.Empty(t, people)

		// Gone at the provider: the session is revoked.
		e.idp.SetAccount("bob", ssotest.Account{Email: "bob@example.com", Name: "Bob", Groups: []string{"aux-devs"}})
		time.Sleep(refresh + 100*time.Millisecond)
		require.Equal(t, http.StatusOK, e.as(bob, "GET", "/api/v1/me", "", false).StatusCode)
		e.idp.DeleteAccount("bob")
		time.Sleep(refresh + 100*time.Millisecond)
		assert.Equal(t, http.StatusUnauthorized, e.as(bob, "GET", "/api/v1/me", "", false).StatusCode)
		e.idp.SetAccount("bob", ssotest.Account{Email: "bob@example.com", Name: "Bob", Groups: []string{"aux-devs"}})
		assert.Equal(t, http.StatusUnauthorized, e.as(bob, "GET", "/api/v1/me", "", false).StatusCode,
			"a revoked session stays revoked")
	})
}

// A person signed in reaches a run's terminal and its event stream with
// the session cookie alone; a page of another origin cannot use it.
func TestTheTerminalAndStreamsTakeTheSessionCookie(t *testing.T) {
	newSSOEnv(t, 0, func(t *testing.T, e ssoEnv) {
		alice, _ := e.signIn("alice")
		session := api.SessionCookie + "=" + cookieOf(t, alice, e.srv.URL, api.SessionCookie)
		agent, _ := e.boundAgent(nil)
		runs := "/api/v1/agents/" + agent["id"].(string) + "/threads/cookie/runs"

		req, err := http.NewRequest("POST", e.srv.URL+runs, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(api.HeaderCSRF, cookieOf(t, alice, e.srv.URL, api.CSRFCookie))
		res, err := alice.Do(req)
		require.NoError(t, err)
		events := readEvents(t, res.Body)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.NotEmpty(t, events)
		last := events[len(events)-1]
		require.Equal(t, "run", last.name, "%v", events)
		var run map[string]any
		require.NoError(t, json.Unmarshal([]byte(last.data), &run))
		path := "/api/v1/runs/" + run["id"].(string)

		term := e.dialTerminal(path+"/terminal", "Cookie", session)
		term.typeKeys("echo cookie-$((20+22))\r")
		term.expect("cookie-42")
		term.typeKeys("exit 0\r")
		code, _ := term.ended()
		assert.Equal(t, websocket.StatusNormalClosure, code)

		_, refused, err := e.tryTerminal(path+"/terminal", "Cookie", session, "Origin", "https://evil.example")
		require.Error(t, err, "a page of another origin")
		require.NotNil(t, refused)
		assert.Equal(t, http.StatusForbidden, refused.StatusCode)

		// The console asks for a ticket (it carries an approval), which opens the
		// terminal only with the session that asked for it.
		asked := e.as(alice, "POST", path+"/terminal-tickets", "", true)
		require.Equal(t, http.StatusCreated, asked.StatusCode, "%s", asked.body)
		ticket := url.QueryEscape(asked.json(t)["ticket"].(string))
		_, bare, err := e.tryTerminal(path+"/terminal?ticket="+ticket, upgradeHeaders[:0]...)
		require.Error(t, err, "a person's ticket without their session")
		require.NotNil(t, bare)
		assert.Equal(t, http.StatusUnauthorized, bare.StatusCode)
		asked = e.as(alice, "POST", path+"/terminal-tickets", "", true)
		require.Equal(t, http.StatusCreated, asked.StatusCode, "%s", asked.body)
		ticket = url.QueryEscape(asked.json(t)["ticket"].(string))
		byTicket := e.dialTerminal(path+"/terminal?ticket="+ticket, "Cookie", session)
		byTicket.typeKeys("echo ticket-$((40+2))\r")
		byTicket.expect("ticket-42")
		byTicket.typeKeys("exit 0\r")
		code, _ = byTicket.ended()
		assert.Equal(t, websocket.StatusNormalClosure, code)

		var who []string
		for _, it := range e.call("GET", "/api/v1/audit?resource_type=run", e.admin, nil).json(t)["items"].([]any) {
			entry := it.(map[string]any)
			who = append(who, entry["action"].(string)+" by "+entry["actor"].(map[string]any)["user_name"].(string))
		}
		assert.Contains(t, who, "run.start by alice@example.com")
		assert.Contains(t, who, "terminal.opened by alice@example.com")
	})
}
