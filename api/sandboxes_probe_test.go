package api_test

import (
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyCatcher is an HTTP server on a loopback address that keeps every
// header and body sent to it, to tell which secrets reached it.
type keyCatcher struct {
	URL  string
	mu   sync.Mutex
	seen []string
}

func newKeyCatcher(t *testing.T, addr string) *keyCatcher {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	k := &keyCatcher{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var b strings.Builder
		b.WriteString(r.Method + " " + r.URL.String() + "\n")
		for name, values := range r.Header {
			b.WriteString(name + ": " + strings.Join(values, ", ") + "\n")
		}
		b.Write(body)
		k.mu.Lock()
		k.seen = append(k.seen, b.String())
		k.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items":[],"pagination":{"page":1,"pageSize":1,"totalItems":0,"totalPages":0,"hasNextPage":false}}`))
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	k.URL = srv.URL
	return k
}

// requests is how many requests arrived; holding counts those that carried value.
func (k *keyCatcher) requests() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.seen)
}

func (k *keyCatcher) holding(value string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, s := range k.seen {
		if strings.Contains(s, value) {
			n++
		}
	}
	return n
}

func TestAStoredSecretStaysWithItsHost(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		const stored, fresh = "osk-stored-key-0123456789", "osk-fresh-key-9876543210"
		home := newKeyCatcher(t, "127.0.0.1:0")
		other := newKeyCatcher(t, "127.0.0.2:0") // another host, as far as any url can tell
		sb := e.createSandbox(map[string]any{"name": "Home", "provider": "opensandbox", "url": home.URL, "secret": stored})
		path := "/api/v1/sandboxes/" + sb["id"].(string)

		// Probing or editing the url to another host without the secret is refused, naming it.
		p := e.call("POST", path+"/probe", e.admin, map[string]any{"url": other.URL}).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"secret"}, fields(p))
		assert.Contains(t, p["errors"].([]any)[0].(map[string]any)["message"], "the url's host changed: give the secret again")
		p = e.call("PATCH", path, e.admin, map[string]any{"url": other.URL, "secret": ""}).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"secret"}, fields(p))
		assert.Zero(t, other.requests(), "nothing was sent to the other host")
		assert.Equal(t, home.URL, e.call("GET", path, e.admin, nil).json(t)["url"], "nothing was saved")

		// Another port or scheme on the same host is another origin too.
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(home.URL, "http://"))
		for _, moved := range []string{"http://127.0.0.1:1", "https://127.0.0.1:" + port, "http://localhost:" + port} {
			p = e.call("PATCH", path, e.admin, map[string]any{"url": moved}).problem(t, 422, "validation_failed")
			assert.Equal(t, []string{"secret"}, fields(p), moved)
		}

		// A new path on the same origin keeps the secret, which still goes home.
		r := e.call("PATCH", path, e.admin, map[string]any{"url": home.URL + "/v2/"})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		res := e.call("POST", path+"/probe", e.admin, nil)
		require.Equal(t, 200, res.StatusCode, "%s", res.body)
		assert.Positive(t, home.holding(stored), "the stored key goes where it was entered for")

		// With the secret given again, the probe and the edit go to the other host, with that secret only.
		res = e.call("POST", path+"/probe", e.admin, map[string]any{"url": other.URL, "secret": fresh})
		require.Equal(t, 200, res.StatusCode, "%s", res.body)
		assert.Positive(t, other.holding(fresh))
		r = e.call("PATCH", path, e.admin, map[string]any{"url": other.URL, "secret": fresh})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		require.Equal(t, 200, e.call("POST", path+"/probe", e.admin, nil).StatusCode)
		// Clearing the secret needs nothing given again: nothing is sent.
		require.Equal(t, 200, e.call("PATCH", path, e.admin, map[string]any{"url": home.URL, "secret": nil}).StatusCode)
		assert.Zero(t, other.holding(stored), "the stored key never reached the other host")

		// Every probe is in the audit log: who, which sandbox, how it went; never a secret.
		audit := e.call("GET", "/api/v1/audit?resource_type=sandbox&resource_id="+sb["id"].(string), e.admin, nil).json(t)
		var probes []map[string]any
		for _, it := range audit["items"].([]any) {
			entry := it.(map[string]any)
			assert.NotContains(t, entry["detail"], "osk-")
			if entry["action"] == "sandbox.probe" {
				probes = append(probes, entry)
			}
		}
		require.Len(t, probes, 4, "three probes and one refused")
		outcomes := map[string]int{}
		for _, entry := range probes {
			outcomes[entry["outcome"].(string)]++
			assert.Equal(t, "admin@default", entry["actor"].(map[string]any)["token_name"])
		}
		assert.Equal(t, map[string]int{"success": 3, "invalid": 1}, outcomes)
		assert.Contains(t, probes[1]["detail"], `probed sandbox "Home" with changes to url, secret replaced, saving nothing:`)
	})
}

func TestProbingAnUnsavedSandboxIsAudited(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		home := newKeyCatcher(t, "127.0.0.1:0")
		res := e.call("POST", "/api/v1/sandboxes/probe", e.admin, map[string]any{"name": "Trial", "provider": "opensandbox",
			"url": home.URL, "secret": "osk-trial-key-0123456789"})
		require.Equal(t, 200, res.StatusCode, "%s", res.body)
		audit := e.call("GET", "/api/v1/audit?resource_type=sandbox", e.admin, nil).json(t)
		entry := audit["items"].([]any)[0].(map[string]any)
		assert.Equal(t, "sandbox.probe", entry["action"])
		assert.Contains(t, entry["detail"], `probed an unsaved opensandbox sandbox "Trial": `)
		assert.NotContains(t, entry["detail"], "osk-trial")
	})
}

// echoServer answers every request 401 with body, as a provider that
// repeats the credential back in its refusal.
func echoServer(t *testing.T, body func(key string) string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(body(r.Header.Get("OPEN-SANDBOX-API-KEY"))))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestAnEchoedSecretNeverReachesHealthOrProbe(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		const key = "osk-echoed-key-0123456789"
		echoes := map[string]func(key string) string{
			"cut by the clip": func(key string) string { return strings.Repeat(".", 477) + key },
			"in base64": func(key string) string {
				return `{"message":"bad key ` + base64.StdEncoding.EncodeToString([]byte(key)) + `"}`
			},
			"upper-cased": func(key string) string { return `{"message":"bad key ` + strings.ToUpper(key) + `"}` },
			"split":       func(key string) string { return "bad key " + key[:9] + "\n  " + key[9:] },
		}
		for name, echo := range echoes {
			sb := e.createSandbox(map[string]any{"name": name, "provider": "opensandbox", "url": echoServer(t, echo), "secret": key})
			path := "/api/v1/sandboxes/" + sb["id"].(string)
			probe := e.call("POST", path+"/probe", e.admin, nil)
			require.Equal(t, 200, probe.StatusCode, "%s", probe.body)
			health := e.call("GET", path, e.member, nil).json(t)["health"].(map[string]any)
			for _, shown := range []string{string(probe.body), health["detail"].(string)} {
				lower := strings.ToLower(strings.Join(strings.Fields(shown), ""))
				assert.NotContains(t, lower, "osk-e", "%s: %s", name, shown)
				assert.NotContains(t, shown, base64.StdEncoding.EncodeToString([]byte(key))[:8], "%s: %s", name, shown)
			}
			assert.Contains(t, health["detail"], "••••", name)
		}
	})
}
