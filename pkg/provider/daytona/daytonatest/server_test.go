package daytonatest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// call sends a raw request and returns the status, headers and body.
func call(t *testing.T, method, url, key, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, b
}

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m), "body: %s", body)
	return m
}

func create(t *testing.T, fake *daytonatest.Server) map[string]any {
	t.Helper()
	status, _, body := call(t, "POST", fake.URL()+"/sandbox", daytonatest.DefaultKey, `{"target":"us","labels":{"a":"b"}}`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	return decode(t, body)
}

func TestControlPlaneErrorShape(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	status, _, body := call(t, "GET", fake.URL()+"/api-keys/current", "wrong", "")
	assert.Equal(t, http.StatusUnauthorized, status)
	e := decode(t, body)
	assert.Equal(t, "Invalid credentials", e["message"])
	assert.Equal(t, "Unauthorized", e["error"])
	assert.EqualValues(t, 401, e["statusCode"])
	assert.Equal(t, "/api/api-keys/current", e["path"])
	assert.Contains(t, e, "timestamp")
}

func TestExpiredKeyIsRefusedLikeAnUnknownOne(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.AddKey("old", time.Now().Add(-time.Minute))
	status, _, body := call(t, "GET", fake.URL()+"/api-keys/current", "old", "")
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Equal(t, "Invalid credentials", decode(t, body)["message"])
}

func TestCreateAnswers200WhileCreating(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 2})
	sb := create(t, fake)
	assert.Equal(t, "creating", sb["state"])
	assert.Equal(t, fake.ToolboxProxyURL(), sb["toolboxProxyUrl"])
	id := sb["id"].(string)
	var seen []string
	for i := 0; i < 3; i++ {
		_, _, body := call(t, "GET", fake.URL()+"/sandbox/"+id, daytonatest.DefaultKey, "")
		seen = append(seen, decode(t, body)["state"].(string))
	}
	assert.Equal(t, []string{"creating", "started", "started"}, seen, "a transition lasts Transition looks")
}

func TestStopOnStoppedSandboxIs400(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	require.NoError(t, fake.Stop(id))
	status, _, body := call(t, "POST", fake.URL()+"/sandbox/"+id+"/stop", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "Sandbox is not in a stoppable state", decode(t, body)["message"])
}

func TestDeleteAnswers200Destroying(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	status, _, body := call(t, "DELETE", fake.URL()+"/sandbox/"+id, daytonatest.DefaultKey, "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "destroying", decode(t, body)["state"])
	status, _, body = call(t, "DELETE", fake.URL()+"/sandbox/"+id, daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusConflict, status, "a sandbox being destroyed refuses a second delete")
	assert.Equal(t, "Sandbox state change in progress", decode(t, body)["message"])
	status, _, body = call(t, "GET", fake.URL()+"/sandbox/"+id, daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "Sandbox with ID or name "+id+" not found", decode(t, body)["message"])
}

func TestRateLimitHeaders(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.RateLimit(daytonatest.OpGetCurrentAPIKey, 1, 3*time.Second)
	status, h, body := call(t, "GET", fake.URL()+"/api-keys/current", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusTooManyRequests, status)
	assert.Equal(t, "3", h.Get("Retry-After-authenticated"))
	assert.Equal(t, "ThrottlerException: Too Many Requests", decode(t, body)["message"])
	status, _, _ = call(t, "GET", fake.URL()+"/api-keys/current", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusOK, status, "the fault lasts its Times")
	assert.Equal(t, 2, fake.Calls(daytonatest.OpGetCurrentAPIKey))
}

func TestListShapes(t *testing.T) {
	for _, bare := range []bool{false, true} {
		fake := daytonatest.Start(t, daytonatest.Options{BareList: bare})
		create(t, fake)
		status, _, body := call(t, "GET", fake.URL()+"/sandbox?labels=%7B%22a%22%3A%22b%22%7D", daytonatest.DefaultKey, "")
		require.Equal(t, http.StatusOK, status)
		if bare {
			var items []map[string]any
			require.NoError(t, json.Unmarshal(body, &items))
			assert.Len(t, items, 1)
		} else {
			page := decode(t, body)
			assert.Len(t, page["items"], 1)
			assert.Contains(t, page, "nextCursor")
		}
	}
}

func TestDashboardOutsideAPI(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	status, h, _ := call(t, "GET", strings.TrimSuffix(fake.URL(), "/api")+"/api-keys/current", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusOK, status, "Daytona serves its dashboard for paths outside /api")
	assert.Contains(t, h.Get("Content-Type"), "text/html")
}

func TestToolboxRefusals(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	workDir := fake.ToolboxProxyURL() + "/" + id + "/work-dir"

	status, _, body := call(t, "GET", workDir, daytonatest.DefaultKey, "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, daytonatest.WorkDir, decode(t, body)["dir"])

	status, _, body = call(t, "GET", workDir, "wrong", "")
	assert.Equal(t, http.StatusUnauthorized, status, "a bad key")
	assert.Equal(t, "unauthorized: authentication failed: Bearer token is invalid", decode(t, body)["message"])

	status, _, body = call(t, "GET", fake.ToolboxProxyURL()+"/no-such-sandbox/work-dir", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusUnauthorized, status, "an unknown sandbox is a 401 too")
	assert.Equal(t, "UNAUTHORIZED", decode(t, body)["code"])

	require.NoError(t, fake.Stop(id))
	status, _, body = call(t, "GET", workDir, daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, decode(t, body)["message"], "Is the Sandbox started?")

	require.NoError(t, fake.SetState(id, "destroying", "destroyed"))
	status, _, body = call(t, "GET", workDir, daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "NOT_FOUND", decode(t, body)["code"])

	require.NoError(t, fake.Destroy(id))
	status, _, _ = call(t, "GET", workDir, daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusUnauthorized, status, "a destroyed sandbox is a 401")
}

func TestToolboxFileErrorsHaveNoBody(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	base := fake.ToolboxProxyURL() + "/" + id
	for _, url := range []string{"/files/info?path=/home/daytona/nope", "/files/download?path=/home/daytona/nope", "/files?path=/home/daytona/nope"} {
		status, _, body := call(t, "GET", base+url, daytonatest.DefaultKey, "")
		assert.Equal(t, http.StatusNotFound, status, url)
		assert.Empty(t, body, url)
	}
	status, _, body := call(t, "DELETE", base+"/files?path=/home/daytona", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusBadRequest, status, "a directory needs recursive=true")
	assert.Empty(t, body)
}

func TestExecuteAnswers(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	exec := fake.ToolboxProxyURL() + "/" + id + "/process/execute"

	status, _, body := call(t, "POST", exec, daytonatest.DefaultKey, `{"command":"echo out; echo err >&2; exit 3","timeout":10}`)
	require.Equal(t, http.StatusOK, status, "a failing command is still a 200")
	res := decode(t, body)
	assert.EqualValues(t, 3, res["exitCode"])
	assert.Equal(t, "out\nerr\n", res["result"], "stdout and stderr together, in order")

	status, _, body = call(t, "POST", exec, daytonatest.DefaultKey, `{"command":"echo started; sleep 30","timeout":1}`)
	assert.Equal(t, http.StatusRequestTimeout, status)
	e := decode(t, body)
	assert.Equal(t, "REQUEST_TIMEOUT", e["code"])
	assert.Equal(t, "request timeout: command execution timeout", e["message"])
	assert.NotContains(t, string(body), "started", "a timed-out command's output is lost")

	status, _, body = call(t, "POST", exec, daytonatest.DefaultKey, `{"command":" "}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "/process/execute", decode(t, body)["path"], "the daemon's errors carry its own path")

	assert.Equal(t, []daytonatest.Executed{
		{Sandbox: id, Command: "echo out; echo err >&2; exit 3", Timeout: 10},
		{Sandbox: id, Command: "echo started; sleep 30", Timeout: 1},
	}, fake.Executed())
}

func TestAutoStopAfterInactivity(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	status, _, body := call(t, "POST", fake.URL()+"/sandbox", daytonatest.DefaultKey, `{"autoStopInterval":15}`)
	require.Equal(t, http.StatusOK, status)
	id := decode(t, body)["id"].(string)

	fake.Advance(10 * time.Minute)
	status, _, _ = call(t, "POST", fake.URL()+"/sandbox/"+id+"/last-activity", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusCreated, status)
	fake.Advance(10 * time.Minute)
	state, _ := fake.State(id)
	assert.Equal(t, "started", state, "reported activity restarts the auto-stop clock")

	fake.Advance(6 * time.Minute)
	state, _ = fake.State(id)
	assert.Equal(t, "stopped", state)
}

func TestLostAnswer(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.Inject(daytonatest.OpCreateSandbox, daytonatest.Fault{Status: http.StatusBadGateway, Lost: true})
	status, _, _ := call(t, "POST", fake.URL()+"/sandbox", daytonatest.DefaultKey, `{}`)
	assert.Equal(t, http.StatusBadGateway, status)
	assert.Len(t, fake.Sandboxes(), 1, "the sandbox was made although its answer was lost")
}

func TestUploadMakesParents(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	var b bytes.Buffer
	b.WriteString("--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\nhello\r\n--x--\r\n")
	req, err := http.NewRequest("POST", fake.ToolboxProxyURL()+"/"+id+"/files/upload?path=/home/daytona/a/b/f", &b)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+daytonatest.DefaultKey)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// The daemon answers when its output is drained: a job left in the
// background with the output open holds the command to its timeout; one
// with its output elsewhere does not.
func TestExecuteWaitsForTheOutputsHolders(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	exec := fake.ToolboxProxyURL() + "/" + id + "/process/execute"

	begun := time.Now()
	status, _, _ := call(t, "POST", exec, daytonatest.DefaultKey, `{"command":"sleep 30 & echo started","timeout":2}`)
	assert.Equal(t, http.StatusRequestTimeout, status, "the job holds the output")
	assert.GreaterOrEqual(t, time.Since(begun), 2*time.Second)

	begun = time.Now()
	status, _, body := call(t, "POST", exec, daytonatest.DefaultKey, `{"command":"sleep 30 >/dev/null 2>&1 & echo started","timeout":10}`)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "started\n", decode(t, body)["result"])
	assert.Less(t, time.Since(begun), 5*time.Second, "a job with its output elsewhere does not hold the command")
}

// Daemons before v0.156 split a command into arguments and run it without
// a shell: a script of several lines does not start.
func TestArgvCommandsRunWithoutAShell(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{ArgvCommands: true})
	id := create(t, fake)["id"].(string)
	exec := fake.ToolboxProxyURL() + "/" + id + "/process/execute"

	status, _, body := call(t, "POST", exec, daytonatest.DefaultKey, `{"command":"sh -c \"echo 'hi there' | tr a-z A-Z\"","timeout":10}`)
	require.Equal(t, http.StatusOK, status)
	res := decode(t, body)
	assert.EqualValues(t, 0, res["exitCode"])
	assert.Equal(t, "HI THERE\n", res["result"])

	status, _, body = call(t, "POST", exec, daytonatest.DefaultKey, `{"command":"echo one\necho two","timeout":10}`)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "one\necho two\n", decode(t, body)["result"], "a line break is part of an argument")

	status, _, body = call(t, "POST", exec, daytonatest.DefaultKey, `{"command":"x=1\necho $x","timeout":10}`)
	require.Equal(t, http.StatusOK, status)
	res = decode(t, body)
	assert.EqualValues(t, -1, res["exitCode"], "no program is called x=1\\necho")
	assert.Equal(t, "", res["result"])
}

// The daemon runs a command to its end though its caller hangs up.
func TestExecuteOutlivesItsCaller(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", fake.ToolboxProxyURL()+"/"+id+"/process/execute",
		strings.NewReader(`{"command":"sleep 1; touch later","timeout":10}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+daytonatest.DefaultKey)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	_, err = client.Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(fake.HomeDir(id), "later"))
		return err == nil
	}, 5*time.Second, 50*time.Millisecond, "the command went on")
}
