package opensandboxtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const key = "k"

var plain = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// call sends a raw request and returns the status and the decoded body.
func call(t *testing.T, method, url, body string, headers map[string]string) (int, map[string]any, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := plain.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v map[string]any
	_ = json.Unmarshal(raw, &v)
	return resp.StatusCode, v, string(raw)
}

var withKey = map[string]string{"OPEN-SANDBOX-API-KEY": key}

const validCreate = `{"image":{"uri":"python:3.12-slim"},"entrypoint":["tail","-f","/dev/null"],"resourceLimits":{"cpu":"1","memory":"2Gi"},"timeout":600}`

func TestCreateValidatesAsTheServer(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: key})
	url := fake.URL + "/v1/sandboxes"
	tests := []struct {
		name   string
		body   string
		status int
		want   string // in the answer
	}{
		{"not JSON", `{`, 422, `"type":"json_invalid"`},
		{"image without entrypoint", `{"image":{"uri":"x"},"resourceLimits":{}}`, 422, "Value error, Entrypoint is required when image is provided."},
		{"neither image nor snapshot", `{"entrypoint":["sh"],"resourceLimits":{}}`, 422, "Exactly one of image or snapshotId must be provided."},
		{"no resource limits", `{"image":{"uri":"x"},"entrypoint":["sh"]}`, 422, "resourceLimits is required"},
		{"timeout under a minute", `{"image":{"uri":"x"},"entrypoint":["sh"],"resourceLimits":{},"timeout":30}`, 422, "greater than or equal to 60"},
		{"metadata value with a colon", `{"image":{"uri":"x"},"entrypoint":["sh"],"resourceLimits":{},"metadata":{"thread":"slack:C1"}}`, 400,
			`"code":"SANDBOX::INVALID_METADATA_LABEL"`},
		{"reserved metadata prefix", `{"image":{"uri":"x"},"entrypoint":["sh"],"resourceLimits":{},"metadata":{"opensandbox.io/id":"x"}}`, 400,
			"uses the reserved prefix"},
		{"host volume with no paths allowed", `{"image":{"uri":"x"},"entrypoint":["sh"],"resourceLimits":{},"volumes":[{"name":"v","mountPath":"/m","host":{"path":"/data"}}]}`,
			400, `Host path '/data' is not under any allowed prefix. Allowed prefixes: []`},
		{"volume name not a DNS label", `{"image":{"uri":"x"},"entrypoint":["sh"],"resourceLimits":{},"volumes":[{"name":"V_1","mountPath":"/m","host":{"path":"/data"}}]}`,
			422, "string_pattern_mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, _, raw := call(t, "POST", url, tt.body, withKey)
			assert.Equal(t, tt.status, status, raw)
			assert.Contains(t, raw, tt.want)
		})
	}
	assert.Empty(t, fake.Sandboxes())

	status, sb, raw := call(t, "POST", url, validCreate, withKey)
	require.Equal(t, http.StatusAccepted, status, raw)
	assert.Equal(t, "Running", sb["status"].(map[string]any)["state"])
	assert.NotContains(t, sb, "image", "create's answer leaves the image out")
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`, sb["expiresAt"])
}

func TestLifecycleAnswersAsTheServer(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: key})
	_, sb, _ := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, withKey)
	id := sb["id"].(string)

	status, body, _ := call(t, "GET", fake.URL+"/v1/sandboxes?pageSize=1", "", nil)
	assert.Equal(t, 401, status)
	assert.Equal(t, "MISSING_API_KEY", body["code"])
	status, body, _ = call(t, "GET", fake.URL+"/v1/sandboxes?pageSize=1", "", map[string]string{"OPEN-SANDBOX-API-KEY": "nope"})
	assert.Equal(t, 401, status)
	assert.Equal(t, "INVALID_API_KEY", body["code"])
	status, _, _ = call(t, "GET", fake.URL+"/health", "", nil)
	assert.Equal(t, 200, status, "health needs no key")

	status, body, _ = call(t, "GET", fake.URL+"/v1/sandboxes?pageSize=1", "", withKey)
	assert.Equal(t, 200, status)
	assert.Len(t, body["items"], 1)
	assert.Equal(t, map[string]any{"page": 1.0, "pageSize": 1.0, "totalItems": 1.0, "totalPages": 1.0, "hasNextPage": false}, body["pagination"])
	status, _, _ = call(t, "GET", fake.URL+"/sandboxes?pageSize=0", "", withKey)
	assert.Equal(t, 422, status, "also served without /v1, with FastAPI's validation")

	status, body, _ = call(t, "GET", fake.URL+"/v1/sandboxes/"+id+"/endpoints/44772?use_server_proxy=true", "", withKey)
	require.Equal(t, 200, status)
	host := strings.TrimPrefix(fake.URL, "http://")
	assert.Equal(t, host+"/sandboxes/"+id+"/proxy/44772", body["endpoint"], "built from the request's host, without /v1")
	assert.NotContains(t, body, "headers", "the server names no execd token")
	status, body, _ = call(t, "GET", fake.URL+"/v1/sandboxes/"+id+"/endpoints/44772", "", withKey)
	require.Equal(t, 200, status)
	assert.NotContains(t, body["endpoint"], "://", "endpoints have no scheme")

	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	status, body, _ = call(t, "POST", fake.URL+"/v1/sandboxes/"+id+"/renew-expiration", `{"expiresAt":"`+past+`"}`, withKey)
	assert.Equal(t, 400, status)
	assert.Equal(t, "DOCKER::INVALID_EXPIRATION", body["code"])
	status, _, _ = call(t, "POST", fake.URL+"/v1/sandboxes/"+id+"/renew-expiration", `{}`, withKey)
	assert.Equal(t, 422, status)

	status, _, raw := call(t, "DELETE", fake.URL+"/v1/sandboxes/"+id, "", withKey)
	assert.Equal(t, 204, status)
	assert.Empty(t, raw)
	for _, path := range []string{"/v1/sandboxes/" + id, "/v1/sandboxes/" + id + "/endpoints/44772"} {
		status, body, _ = call(t, "GET", fake.URL+path, "", withKey)
		assert.Equal(t, 404, status)
		assert.Equal(t, "DOCKER::SANDBOX_NOT_FOUND", body["code"])
		assert.Equal(t, "Sandbox "+id+" not found.", body["message"])
	}
}

func TestListFiltersAsTheServer(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	labelled := func(team, note string) string {
		return strings.Replace(validCreate, `"timeout":600`, `"timeout":600,"metadata":{"team":"`+team+`","note":"`+note+`"}`, 1)
	}
	status, infra, raw := call(t, "POST", fake.URL+"/v1/sandboxes", labelled("infra", "demo-1"), nil)
	require.Equal(t, 202, status, raw)
	status, _, raw = call(t, "POST", fake.URL+"/v1/sandboxes", labelled("data", "x"), nil)
	require.Equal(t, 202, status, raw)

	list := func(query string) (int, map[string]any) {
		status, body, _ := call(t, "GET", fake.URL+"/v1/sandboxes?"+query, "", nil)
		return status, body
	}
	ids := func(body map[string]any) []string {
		var out []string
		for _, it := range body["items"].([]any) {
			out = append(out, it.(map[string]any)["id"].(string))
		}
		return out
	}
	// The filter is a query string sent as one parameter: its own escapes are escaped again.
	_, body := list("metadata=" + url.QueryEscape("team=infra&note=demo%2D1"))
	assert.Equal(t, []string{infra["id"].(string)}, ids(body))
	_, body = list("metadata=" + url.QueryEscape("team=infra&note=other"))
	assert.Empty(t, ids(body), "every pair must match")
	_, body = list("metadata=&state=running")
	assert.Len(t, ids(body), 2, "an empty filter filters nothing; states match in any case")

	for _, bad := range []string{"team=infra&broken", "team=infra&", "&"} {
		status, body := list("metadata=" + url.QueryEscape(bad))
		assert.Equal(t, 400, status, bad)
		assert.Equal(t, "INVALID_METADATA_FORMAT", body["code"], bad)
		assert.Contains(t, body["message"], "Invalid metadata format: bad query field: ", bad)
	}
}

func TestALostAnswerIsCarriedOut(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	fake.Inject(opensandboxtest.OpCreate, opensandboxtest.Fault{Lost: true, Status: 502})
	status, _, _ := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, nil)
	assert.Equal(t, 502, status)
	assert.Len(t, fake.Sandboxes(), 1, "the sandbox was made although its answer was lost")
}

func TestRenewNeedsATimeout(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	_, sb, _ := call(t, "POST", fake.URL+"/v1/sandboxes", strings.Replace(validCreate, `,"timeout":600`, "", 1), nil)
	id := sb["id"].(string)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	status, body, _ := call(t, "POST", fake.URL+"/v1/sandboxes/"+id+"/renew-expiration", `{"expiresAt":"`+future+`"}`, nil)
	assert.Equal(t, 409, status)
	assert.Equal(t, "DOCKER::INVALID_EXPIRATION", body["code"])
}

func TestExecdAnswersAsExecd(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{ExecdAccessToken: "execd-token"})
	_, sb, _ := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, nil)
	id := sb["id"].(string)
	_, ep, _ := call(t, "GET", fake.URL+"/v1/sandboxes/"+id+"/endpoints/44772", "", nil)
	execd := "http://" + ep["endpoint"].(string)
	token := map[string]string{"X-EXECD-ACCESS-TOKEN": "execd-token"}

	status, body, _ := call(t, "GET", execd+"/ping", "", nil)
	assert.Equal(t, 401, status)
	assert.Equal(t, "Unauthorized: invalid or missing header X-EXECD-ACCESS-TOKEN", body["error"])
	status, _, raw := call(t, "GET", execd+"/nope", "", token)
	assert.Equal(t, 404, status)
	assert.Equal(t, "404 page not found", raw)
	status, body, _ = call(t, "POST", execd+"/command", `{"command":"true","cwd":"/workspace"}`, token)
	assert.Equal(t, 400, status, "a new sandbox has no /workspace until someone makes it")
	assert.Equal(t, "invalid request, validation error working directory does not exist: /workspace: stat /workspace: no such file or directory",
		body["message"])
	status, body, _ = call(t, "GET", execd+"/files/download?path=/etc/passwd", "", token)
	assert.Equal(t, 404, status, "the sandbox's files are its own, not the host's")
	assert.Equal(t, "FILE_NOT_FOUND", body["code"])

	// Through the server proxy, with no API key needed and the access header still required.
	proxy := fake.URL + "/sandboxes/" + id + "/proxy/44772"
	status, _, _ = call(t, "GET", proxy+"/ping", "", token)
	assert.Equal(t, 200, status)
	status, _, _ = call(t, "GET", proxy+"/ping", "", nil)
	assert.Equal(t, 401, status)
	assert.Equal(t, 3, fake.Calls(opensandboxtest.OpPing))
}

// Pause and resume answer 202, or 409 from a state they do not apply to;
// get and renew answer for a paused or exited sandbox as for any other.
func TestStatesAnswerAsTheServer(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: key})
	status, created, _ := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, withKey)
	require.Equal(t, 202, status)
	sandbox := fake.URL + "/v1/sandboxes/" + created["id"].(string)
	state := func() string {
		_, got, _ := call(t, "GET", sandbox, "", withKey)
		return got["status"].(map[string]any)["state"].(string)
	}

	status, _, raw := call(t, "POST", sandbox+"/resume", "", withKey)
	assert.Equal(t, 409, status)
	assert.Contains(t, raw, "DOCKER::SANDBOX_NOT_PAUSED")
	status, _, _ = call(t, "POST", sandbox+"/pause", "", withKey)
	assert.Equal(t, 202, status)
	assert.Equal(t, "Paused", state())
	status, _, raw = call(t, "POST", sandbox+"/pause", "", withKey)
	assert.Equal(t, 500, status, "Docker refuses to pause a paused container")
	assert.Contains(t, raw, "DOCKER::SANDBOX_PAUSE_FAILED")
	status, _, _ = call(t, "POST", sandbox+"/resume", "", withKey)
	assert.Equal(t, 202, status)
	assert.Equal(t, "Running", state())

	fake.SetState(created["id"].(string), opensandboxtest.Failed)
	assert.Equal(t, "Failed", state())
	status, _, raw = call(t, "POST", sandbox+"/pause", "", withKey)
	assert.Equal(t, 409, status)
	assert.Contains(t, raw, "DOCKER::SANDBOX_NOT_RUNNING")
	renewal := `{"expiresAt":"` + time.Now().Add(time.Hour).UTC().Format(time.RFC3339) + `"}`
	status, _, _ = call(t, "POST", sandbox+"/renew-expiration", renewal, withKey)
	assert.Equal(t, 200, status, "the server renews an exited sandbox")
	status, _, raw = call(t, "GET", sandbox+"/proxy/44772/ping", "", nil)
	assert.Equal(t, 500, status)
	assert.Contains(t, raw, "DOCKER::NETWORK_MODE_ENDPOINT_UNAVAILABLE")
}

// An execd started without --access-token, as the server starts it, takes
// calls with no token at all.
func TestExecdWithoutATokenChecksNone(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	_, sb, _ := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, nil)
	status, _, _ := call(t, "GET", fake.URL+"/sandboxes/"+sb["id"].(string)+"/proxy/44772/ping", "", nil)
	assert.Equal(t, 200, status)
}
