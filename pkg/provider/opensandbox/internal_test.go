package opensandbox

import (
	"errors"
	"net/http"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDescribeBodyReadsEveryErrorShape(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"lifecycle code and message", 404, `{"code":"DOCKER::SANDBOX_NOT_FOUND","message":"Sandbox x not found."}`,
			"DOCKER::SANDBOX_NOT_FOUND: Sandbox x not found."},
		{"FastAPI validation list", 422,
			`{"detail":[{"type":"greater_than_equal","loc":["body","timeout"],"msg":"Input should be greater than or equal to 60","input":30}]}`,
			"422 Unprocessable Entity: body.timeout: Input should be greater than or equal to 60"},
		{"FastAPI detail string", 404, `{"detail":"Not Found"}`, "404 Not Found: Not Found"},
		{"execd access refused", 401, `{"error":"Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN"}`,
			"Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN"},
		{"plain text from a proxy", 502, "Bad Gateway\n", "502 Bad Gateway: Bad Gateway"},
		{"nothing at all", 503, "", "503 Service Unavailable"},
		{"a code alone", 416, `{"code":"UNKNOWN"}`, "UNKNOWN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, describeBody(tt.status, []byte(tt.body)))
		})
	}
}

func TestStatusErrorKinds(t *testing.T) {
	tests := []struct {
		surface surface
		status  int
		code    string
		kind    error
	}{
		{lifecycleAPI, http.StatusUnauthorized, "C", provider.ErrUnauthorized},
		{lifecycleAPI, http.StatusForbidden, "C", provider.ErrUnauthorized},
		{lifecycleAPI, http.StatusNotFound, "DOCKER::SANDBOX_NOT_FOUND", provider.ErrGone},
		{lifecycleAPI, http.StatusNotFound, "KUBERNETES::SANDBOX_NOT_FOUND", provider.ErrGone},
		{lifecycleAPI, http.StatusNotFound, "KUBERNETES::POD_IP_NOT_AVAILABLE", provider.ErrFailed},
		{lifecycleAPI, http.StatusBadRequest, "C", provider.ErrInvalidConfig},
		{lifecycleAPI, http.StatusConflict, "C", provider.ErrInvalidConfig},
		{lifecycleAPI, http.StatusUnprocessableEntity, "C", provider.ErrInvalidConfig},
		{lifecycleAPI, http.StatusInternalServerError, "C", provider.ErrFailed},
		{lifecycleAPI, http.StatusGatewayTimeout, "C", provider.ErrTimeout},
		{execdAPI, http.StatusUnauthorized, "C", provider.ErrUnauthorized},
		{execdAPI, http.StatusNotFound, "FILE_NOT_FOUND", provider.ErrNotFound},
		{execdAPI, http.StatusNotFound, "DOCKER::SANDBOX_NOT_FOUND", provider.ErrGone},
		{execdAPI, http.StatusBadRequest, "C", provider.ErrFailed},
		{execdAPI, http.StatusBadGateway, "C", provider.ErrFailed},
	}
	for _, tt := range tests {
		err := statusError(tt.surface, "op", tt.status, []byte(`{"code":"`+tt.code+`","message":"M"}`))
		assert.ErrorIs(t, err, tt.kind, "surface %d status %d code %s", tt.surface, tt.status, tt.code)
		var perr *provider.Error
		require.True(t, errors.As(err, &perr))
		assert.Equal(t, tt.code+": M", perr.Message, "the server's own code and message")
		assert.Equal(t, "opensandbox", perr.Provider)
	}
	err := statusError(lifecycleAPI, "probe", http.StatusNotFound, []byte(`{"detail":"Not Found"}`))
	assert.ErrorIs(t, err, provider.ErrInvalidConfig, "a route the server does not have: a wrong url")
}

func TestExecdNotFoundIsAFileUnlessTheSandboxIsMissing(t *testing.T) {
	err := statusError(execdAPI, "read file", 404, []byte(`{"code":"FILE_NOT_FOUND","message":"file not found. open /x: no such file or directory"}`))
	assert.ErrorIs(t, err, provider.ErrNotFound)
	for _, code := range []string{"DOCKER::SANDBOX_NOT_FOUND", "KUBERNETES::SANDBOX_NOT_FOUND"} {
		err = statusError(execdAPI, "execute", 404, []byte(`{"code":"`+code+`","message":"Sandbox x not found."}`))
		assert.ErrorIs(t, err, provider.ErrGone, code)
	}
}

func TestAsLineRestoresLineBreaks(t *testing.T) {
	assert.Equal(t, "hello\n", asLine("hello"))
	assert.Equal(t, "\n", asLine("\n"), "a blank line is not doubled")
	assert.Equal(t, "already\n", asLine("already\n"))
	assert.Equal(t, "\n", asLine(""))
}

func TestErrorExitCode(t *testing.T) {
	tests := []struct {
		name      string
		err       *EventError
		code      int
		signalled bool
		fails     bool
	}{
		{"exit status", &EventError{Name: "CommandExecError", Value: "3", Traceback: []string{"exit status 3"}}, 3, false, false},
		{"killed by execd's timeout", &EventError{Value: "-1", Traceback: []string{"signal: killed"}}, 137, true, false},
		{"terminated by an interrupt", &EventError{Value: "-1", Traceback: []string{"signal: terminated"}}, 143, true, false},
		{"a crash", &EventError{Value: "-1", Traceback: []string{"signal: segmentation fault (core dumped)"}}, 139, true, false},
		{"an unnamed signal", &EventError{Value: "-1"}, 137, true, false},
		{"could not start", &EventError{Name: "CommandExecError", Value: `exec: "bash": executable file not found in $PATH`}, 0, false, true},
		{"no error at all", nil, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, signalled, err := errorExitCode(tt.err)
			if tt.fails {
				assert.ErrorIs(t, err, provider.ErrFailed)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.signalled, signalled)
		})
	}
}

func TestNewExecdTarget(t *testing.T) {
	const controller = "https://osb.example.com:8443/base"
	tests := []struct {
		name     string
		endpoint string
		proxied  bool
		want     string
	}{
		{"host mode", "10.0.0.5:44772", false, "http://10.0.0.5:44772"},
		{"bridge mode carries a path", "127.0.0.1:40123/proxy/44772", false, "http://127.0.0.1:40123/proxy/44772"},
		{"a scheme given is kept", "https://gw.example.com/route/", false, "https://gw.example.com/route"},
		{"the server proxy is reached where the controller is", "sandbox.example.com/sandboxes/a%20b/proxy/44772", true,
			controller + "/sandboxes/a%20b/proxy/44772"},
		{"even when the server names its eip without a port", "203.0.113.7/sandboxes/a%20b/proxy/44772", true,
			controller + "/sandboxes/a%20b/proxy/44772"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := newExecdTarget(endpointAnswer{Endpoint: tt.endpoint, Headers: map[string]string{"H": "v"}}, "a b", tt.proxied, controller)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.BaseURL)
			assert.Equal(t, tt.proxied, got.Proxied)
			assert.Equal(t, map[string]string{"H": "v"}, got.Headers)
			back, err := decodeTarget(got.encode())
			require.NoError(t, err)
			assert.Equal(t, got, back, "the target survives being stored")
		})
	}
	for _, bad := range []string{"", "   ", "ftp://x/y", "://"} {
		_, err := newExecdTarget(endpointAnswer{Endpoint: bad}, "id", false, controller)
		assert.Error(t, err, "endpoint %q", bad)
	}
	_, err := decodeTarget(nil)
	assert.ErrorIs(t, err, errNoState)
	_, err = decodeTarget([]byte(`{"headers":{}}`))
	assert.ErrorIs(t, err, errNoState)
}

func TestMetadataKeepsOnlyValidLabels(t *testing.T) {
	m := metadata(provider.Labels{
		Workspace: "0b6f7c2e-8f0a-4c1e-9d55-2b1f3e4a5c6d",
		Sandbox:   "sb_01.x-y",
		Thread:    "slack:C123/1700000000.000100", // not a label value: never sent
	})
	assert.Equal(t, map[string]string{
		"managed-by":        "auxilia",
		"auxilia-workspace": "0b6f7c2e-8f0a-4c1e-9d55-2b1f3e4a5c6d",
		"auxilia-sandbox":   "sb_01.x-y",
	}, m)
	long := metadata(provider.Labels{Workspace: string(make([]byte, 64))})
	assert.NotContains(t, long, "auxilia-workspace")
}

func TestVolumesFromMounts(t *testing.T) {
	vols, err := volumes([]string{"/data/models:/models:ro", "/srv/cache:/cache"})
	require.NoError(t, err)
	assert.Equal(t, []volume{
		{Name: "mount-0", MountPath: "/models", ReadOnly: true, Host: hostVolume{Path: "/data/models"}},
		{Name: "mount-1", MountPath: "/cache", Host: hostVolume{Path: "/srv/cache"}},
	}, vols)
	_, err = volumes([]string{"relative:/x"})
	assert.Error(t, err)
}
