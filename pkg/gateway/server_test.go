package gateway

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

func TestAuthentication(t *testing.T) {
	h := newHarness(t)
	get := func(auth string) *http.Response {
		req, _ := http.NewRequest("GET", h.srv.URL+"/sandboxes?limit=1", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := h.srv.Client().Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for name, auth := range map[string]string{
		"no header":        "",
		"wrong secret":     "Bearer not-the-secret",
		"secret as prefix": "Bearer " + testSecret + "x",
		"other scheme":     "Basic " + testSecret,
	} {
		t.Run(name, func(t *testing.T) {
			resp := get(auth)
			problem(t, resp, http.StatusUnauthorized, auxilia.CodeUnauthorized)
			assert.Contains(t, resp.Header.Get("WWW-Authenticate"), "Bearer")
		})
	}
	list := decode[sandboxList](t, get("Bearer "+testSecret), http.StatusOK)
	assert.Empty(t, list.Items)

	t.Run("routes that do not exist ask for the secret too", func(t *testing.T) {
		req, _ := http.NewRequest("GET", h.srv.URL+"/nothing-here", nil)
		resp, err := h.srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		problem(t, resp, http.StatusUnauthorized, auxilia.CodeUnauthorized)
	})
}

func TestNoSecretConfigured(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Secret = "" })
	h.secret = ""
	problem(t, h.call("GET", "/sandboxes?limit=1", nil), http.StatusServiceUnavailable, auxilia.CodeUnauthorized, wire.SubjectSecret)
	problem(t, h.call("POST", "/sandboxes", sandboxSpec{}), http.StatusServiceUnavailable, auxilia.CodeUnauthorized, wire.SubjectSecret)
	health := decode[Health](t, h.call("GET", "/health", nil), http.StatusOK)
	assert.True(t, health.CLIMounted, "health needs no secret")
}

func TestHealth(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.AllowEgress = true })
	resp, err := http.Get(h.srv.URL + "/health")
	require.NoError(t, err)
	defer resp.Body.Close()
	health := decode[Health](t, resp, http.StatusOK)
	assert.Equal(t, Health{CLIMounted: true, AllowEgress: true, Launcher: "shell"}, health)

	broken := newHarness(t)
	broken.launcher.checkErr = errors.New("bwrap: setting up uid map: Permission denied")
	health = decode[Health](t, broken.call("GET", "/health", nil), http.StatusOK)
	assert.False(t, health.CLIMounted)
	assert.False(t, health.AllowEgress)
	assert.Contains(t, health.Detail, "uid map")
}

func TestSandboxIDs(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	assert.Regexp(t, `^sbx-[0-9a-f]{12}$`, sb.ID)
	assert.Equal(t, "/workspace", sb.WorkDir)

	bad := []string{"-leading-dash", "_under", "dot.ted", "sp%20ace", "%2e%2e", "..", strings.Repeat("a", 65), "semi;colon", "uni%C3%A9"}
	routes := []struct{ method, path string }{
		{"GET", "/sandboxes/%s"}, {"DELETE", "/sandboxes/%s"}, {"POST", "/sandboxes/%s/keepalive"},
		{"POST", "/sandboxes/%s/exec"}, {"GET", "/sandboxes/%s/files/content?path=x"},
		{"PUT", "/sandboxes/%s/files/content?path=x"}, {"GET", "/sandboxes/%s/files/list?path=."},
		{"GET", "/sandboxes/%s/files/info?path=x"}, {"DELETE", "/sandboxes/%s/files?path=x"},
		{"POST", "/sandboxes/%s/snapshot"}, {"DELETE", "/sandboxes/%s/snapshot?gcs_bucket=snapshots"},
		{"POST", "/sandboxes/%s/restore"},
	}
	for _, route := range routes {
		for _, id := range bad {
			resp := h.call(route.method, strings.Replace(route.path, "%s", id, 1), nil)
			if id == ".." || id == "%2e%2e" {
				// The router cleans these away (to a redirect or another route) before any route sees them.
				assert.NotEqual(t, http.StatusOK, resp.StatusCode)
				continue
			}
			problem(t, resp, http.StatusBadRequest, auxilia.CodeMalformed, wire.SubjectSandbox)
		}
	}
	long := strings.Repeat("a", 64)
	problem(t, h.call("GET", "/sandboxes/"+long, nil), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSandbox)
	problem(t, h.call("GET", "/sandboxes/Valid_id-9", nil), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSandbox)
}

func TestSandboxLifecycle(t *testing.T) {
	h := newHarness(t)
	spec := sandboxSpec{GCSBucket: "snapshots", SnapshotPrefix: "threads/", Labels: map[string]string{"thread": "t-1"}}
	sb := h.create(spec)
	assert.Equal(t, "snapshots", sb.GCSBucket)
	assert.Equal(t, map[string]string{"thread": "t-1"}, sb.Labels)

	got := decode[Sandbox](t, h.call("GET", "/sandboxes/"+sb.ID, nil), http.StatusOK)
	assert.Equal(t, sb.ID, got.ID)
	alive := decode[Sandbox](t, h.call("POST", "/sandboxes/"+sb.ID+"/keepalive", nil), http.StatusOK)
	assert.False(t, alive.LastActiveAt.Before(sb.LastActiveAt))

	second := h.create(sandboxSpec{})
	page := decode[sandboxList](t, h.call("GET", "/sandboxes?limit=1", nil), http.StatusOK)
	require.Len(t, page.Items, 1)
	require.NotEmpty(t, page.NextCursor)
	rest := decode[sandboxList](t, h.call("GET", "/sandboxes?limit=1&cursor="+page.NextCursor, nil), http.StatusOK)
	require.Len(t, rest.Items, 1)
	assert.Empty(t, rest.NextCursor)
	assert.ElementsMatch(t, []string{sb.ID, second.ID}, []string{page.Items[0].ID, rest.Items[0].ID})

	for range 2 {
		resp := h.call("DELETE", "/sandboxes/"+sb.ID, nil)
		assert.Equal(t, http.StatusNoContent, resp.StatusCode, "delete is idempotent")
	}
	problem(t, h.call("GET", "/sandboxes/"+sb.ID, nil), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSandbox)
	problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/exec", map[string]any{"command": "true"}), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSandbox)

	problem(t, h.call("PATCH", "/sandboxes/"+second.ID, nil), http.StatusMethodNotAllowed, auxilia.CodeMethodNotAllowed)
}

func TestCreateValidation(t *testing.T) {
	h := newHarness(t)
	p := problem(t, h.call("POST", "/sandboxes", map[string]any{
		"gcs_bucket": "Not_A_Bucket", "snapshot_prefix": "/abs", "labels": map[string]string{"Bad Key": "v"},
	}), http.StatusUnprocessableEntity, auxilia.CodeInvalid)
	var fields []string
	for _, e := range p.Errors {
		fields = append(fields, e.Field)
	}
	assert.ElementsMatch(t, []string{"gcs_bucket", "snapshot_prefix", "labels.Bad Key"}, fields, "every broken field is named")
	problem(t, h.call("POST", "/sandboxes", map[string]any{"unknown": 1}), http.StatusBadRequest, auxilia.CodeMalformed)
	problem(t, h.call("POST", "/sandboxes", strings.NewReader("{"), "Content-Type", "application/json"), http.StatusBadRequest, auxilia.CodeMalformed)
}

func TestEgressNeedsBothSides(t *testing.T) {
	for _, tc := range []struct {
		gateway, asked, granted bool
	}{
		{false, false, false}, {false, true, false}, {true, false, false}, {true, true, true},
	} {
		h := newHarness(t, func(c *Config) { c.AllowEgress = tc.gateway })
		sb := h.create(sandboxSpec{AllowEgress: tc.asked})
		assert.Equal(t, tc.granted, sb.AllowEgress, "gateway %v, asked %v", tc.gateway, tc.asked)
		assert.Equal(t, tc.asked, sb.EgressRequested)
		h.exec(sb.ID, map[string]any{"command": "true"})
		assert.Equal(t, tc.granted, h.launcher.lastJob().Network, "the launcher is told the same")
	}
}

func TestSandboxesSurviveARestart(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{Labels: map[string]string{"thread": "t"}})
	h.exec(sb.ID, map[string]any{"command": "echo kept > kept.txt"})
	h.gw.Close()

	again, err := New(h.gw.cfg, Options{Launcher: h.launcher, Store: h.gw.store})
	require.NoError(t, err)
	defer again.Close()
	got, ok := again.sandboxes.get(sb.ID)
	require.True(t, ok, "a restarted gateway finds the sandboxes in its data folder")
	assert.Equal(t, sb.Labels, got.view(false).Labels)
}

// Past GATEWAY_MAX_SANDBOXES a create is refused at once, in words that
// name the limit; a deleted sandbox makes room again.
func TestCreatePastTheCapIsRefused(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.MaxSandboxes = 1 })
	first := h.create(sandboxSpec{})
	p := problem(t, h.call("POST", "/sandboxes", sandboxSpec{}), http.StatusServiceUnavailable, auxilia.CodeUnavailable, wire.SubjectCapacity)
	assert.Contains(t, p.Detail, "GATEWAY_MAX_SANDBOXES")
	require.Equal(t, http.StatusNoContent, h.call("DELETE", "/sandboxes/"+first.ID, nil).StatusCode)
	h.create(sandboxSpec{})
}
