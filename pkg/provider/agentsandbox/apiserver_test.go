package agentsandbox

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
)

var testPolicy = provider.Policy{}

// writeStatus writes a metav1.Status as the API server does.
func writeStatus(w http.ResponseWriter, code int, reason, message string, causes ...string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	s := map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": reason, "code": code}
	if len(causes) > 0 {
		var list []map[string]string
		for _, f := range causes {
			list = append(list, map[string]string{"field": f, "message": "Required value"})
		}
		s["details"] = map[string]any{"causes": list}
	}
	_ = json.NewEncoder(w).Encode(s)
}

// clientOf opens a client whose kubeconfig points at the handler, with a
// token it checks.
func clientOf(t *testing.T, h http.HandlerFunc, configure func(*Config)) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secretToken {
			writeStatus(w, http.StatusUnauthorized, "Unauthorized", "Unauthorized")
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := DefaultConfig()
	cfg.Namespace, cfg.Image = "agents", "ghcr.io/org/sandboxd:1.0"
	if configure != nil {
		configure(cfg)
	}
	c, err := openClient(cfg, kubeconfigWith("    server: "+srv.URL, "    token: "+secretToken), testPolicy, inCluster{})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestTheProbeSaysWhatTheClusterLacks(t *testing.T) {
	crdsMissing := clientOf(t, func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, http.StatusNotFound, "NotFound", "the server could not find the requested resource")
	}, nil)
	err := crdsMissing.Probe(t.Context())
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "the agent-sandbox CRDs are not installed in this cluster")

	var reviewed accessReview
	denied := clientOf(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/apis/agents.x-k8s.io/v1beta1/namespaces/agents/sandboxes":
			_, _ = w.Write([]byte(`{"kind":"SandboxList","items":[]}`))
		case r.Method == http.MethodPost && r.URL.Path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews":
			_ = json.NewDecoder(r.Body).Decode(&reviewed)
			reviewed.Status.Allowed = false
			_ = json.NewEncoder(w).Encode(reviewed)
		default:
			http.NotFound(w, r)
		}
	}, nil)
	err = denied.Probe(t.Context())
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Contains(t, err.Error(), "may not create sandboxes in namespace agents")
	attrs := reviewed.Spec.ResourceAttributes
	assert.Equal(t, []string{"agents", "create", "agents.x-k8s.io", "sandboxes"}, []string{attrs.Namespace, attrs.Verb, attrs.Group, attrs.Resource})

	wrongToken := clientOf(t, nil, nil)
	wrongToken.caller.Auth = func(h http.Header) { h.Set("Authorization", "Bearer nope") }
	require.ErrorIs(t, wrongToken.Probe(t.Context()), provider.ErrUnauthorized)
}

func TestTheAPIServersAnswersAreSorted(t *testing.T) {
	cases := []struct {
		code        int
		reason, msg string
		op          string
		kind        error
		field       string
		causes      []string
	}{
		{401, "Unauthorized", "Unauthorized", "create", provider.ErrUnauthorized, "", nil},
		{403, "Forbidden", `sandboxes.agents.x-k8s.io "x" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=10, limited: pods=10`, "create", provider.ErrQuota, "", nil},
		{403, "Forbidden", `sandboxes.agents.x-k8s.io is forbidden: User "ana" cannot create resource "sandboxes"`, "create", provider.ErrUnauthorized, "", nil},
		{404, "NotFound", `sandboxes.agents.x-k8s.io "aux-1" not found`, "reconnect", provider.ErrGone, "", nil},
		{409, "AlreadyExists", `sandboxes.agents.x-k8s.io "aux-1" already exists`, "create", provider.ErrFailed, "", nil},
		{422, "Invalid", `Sandbox.agents.x-k8s.io "aux-1" is invalid`, "create", provider.ErrInvalidConfig, "image", []string{"spec.podTemplate.spec.containers[0].image"}},
		{429, "TooManyRequests", "too many requests", "create", provider.ErrRateLimited, "", nil},
		{500, "InternalError", "etcd is down", "create", provider.ErrFailed, "", nil},
		{504, "Timeout", "the server was unable to return a response in the time allotted", "create", provider.ErrTimeout, "", nil},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		writeStatus(rec, c.code, c.reason, c.msg, c.causes...)
		err := apiRefusal(c.op, provider.Answer{Status: c.code, Body: rec.Body.Bytes()})
		require.ErrorIs(t, err, c.kind, "%d %s", c.code, c.reason)
		assert.Contains(t, err.Error(), c.msg, "the API server's words")
		assert.Equal(t, c.field, provider.RefusedField(err))
	}
}

func TestAPodThatCannotStartIsSaidAtOnce(t *testing.T) {
	var deleted bool
	c := clientOf(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/sandboxtemplates/auxilia-sb-1") && r.Method == http.MethodGet:
			writeStatus(w, http.StatusNotFound, "NotFound", "not found")
		case strings.HasSuffix(r.URL.Path, "/sandboxtemplates") && r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{}`))
		case strings.HasSuffix(r.URL.Path, "/sandboxes") && r.Method == http.MethodPost:
			var sb sandbox
			_ = json.NewDecoder(r.Body).Decode(&sb)
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(sb)
		case strings.HasSuffix(r.URL.Path, "/sandboxes/aux-inst-1") && r.Method == http.MethodGet:
			_, _ = w.Write([]byte(`{"metadata":{"name":"aux-inst-1"},"spec":{},"status":{"conditions":[
				{"type":"Ready","status":"False","reason":"DependenciesNotReady","message":"Pod exists with phase: Pending"}]}}`))
		case strings.HasSuffix(r.URL.Path, "/pods/aux-inst-1"):
			_, _ = w.Write([]byte(`{"status":{"phase":"Pending","containerStatuses":[{"name":"sandboxd","state":{"waiting":{
				"reason":"ImagePullBackOff","message":"Back-off pulling image \"ghcr.io/org/sandboxd:1.0\""}}}]}}`))
		case strings.HasSuffix(r.URL.Path, "/sandboxes/aux-inst-1") && r.Method == http.MethodDelete:
			deleted = true
			_, _ = w.Write([]byte(`{}`))
		default:
			http.NotFound(w, r)
		}
	}, nil)
	_, err := c.Create(t.Context(), provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1", Instance: "inst-1"})
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "ImagePullBackOff")
	assert.Equal(t, "image", provider.RefusedField(err))
	assert.True(t, deleted, "the Sandbox that cannot start is not left behind")
	var pe *provider.Error
	assert.True(t, errors.As(err, &pe))
}
