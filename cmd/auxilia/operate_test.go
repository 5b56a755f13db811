package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func scrape(t *testing.T, srv *server) string {
	t.Helper()
	res, err := http.Get(srv.URL + "/metrics")
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode, "/metrics needs no token")
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(b)
}

// jsonLines decodes the server's log lines.
func jsonLines(t *testing.T, srv *server) []map[string]any {
	t.Helper()
	logs := srv.logs()
	var out []map[string]any
	for _, line := range strings.Split(logs[strings.Index(logs, "stderr:")+len("stderr:\n"):], "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "every log line is JSON: %s", line)
		out = append(out, m)
	}
	return out
}

func TestMetricsAndLogs(t *testing.T) {
	srv := instance(t)
	secretValue := "osk-metrics-secret-0123456789"
	agent := bindNew(t, srv, map[string]any{"name": "Local", "provider": "local"})
	status, run := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", run)
	execute(t, srv, run["id"].(string), "echo hi")
	status, _ = post(t, "POST", srv.URL+"/api/v1/sandboxes/probe", adminToken,
		map[string]any{"name": "x", "provider": "opensandbox", "url": "127.0.0.1:1", "secret": secretValue})
	require.Equal(t, 200, status)
	status, _ = post(t, "POST", srv.URL+"/api/v1/sandboxes", adminToken,
		map[string]any{"name": "os", "provider": "opensandbox", "url": "127.0.0.1:1", "secret": secretValue})
	require.Equal(t, 201, status)

	m := scrape(t, srv)
	for _, want := range []string{
		`auxilia_http_requests_total{method="POST",route="/api/v1/sandboxes",status="201"}`,
		`auxilia_http_request_duration_seconds_bucket{method="POST",route="/api/v1/runs/:run_id/execute",le=`,
		`auxilia_provider_calls_total{operation="create",outcome="ok",provider="local"} 1`,
		`auxilia_provider_calls_total{operation="execute",outcome="ok",provider="local"} 1`,
		`auxilia_provider_call_duration_seconds_count{operation="probe",provider="local"} `, // the run's, and maybe a health check's
		`auxilia_runs_started_total{provider="local"} 1`,
		`auxilia_instances_total{event="created",provider="local"} 1`,
		`auxilia_workspace_usage_up 1`,
		`auxilia_workspace_instances{state="running",workspace="default"} 1`,
		`auxilia_workspace_instance_events_total{kind="created",workspace="default"} 1`,
		`go_sql_open_connections{db_name="auxilia"}`,
		`go_goroutines`,
	} {
		assert.True(t, strings.Contains(m, want), "/metrics has %s", want)
	}

	var requests int
	for _, line := range jsonLines(t, srv) {
		if line["msg"] != "request" {
			continue
		}
		requests++
		for _, key := range []string{"request_id", "method", "route", "status", "latency_ms"} {
			assert.Contains(t, line, key, "a request line names its %s", key)
		}
		if line["route"] == "/api/v1/runs/:run_id/execute" {
			assert.NotEmpty(t, line["actor"], "and who made the request")
		}
	}
	assert.Greater(t, requests, 5)
	assert.NotContains(t, srv.logs(), secretValue, "no log line holds a secret")
	assert.NotContains(t, srv.logs(), adminToken, "or a token")
}

// waitGone waits until nothing accepts connections at the server's address.
func waitRefusing(t *testing.T, srv *server) {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		conn, err := net.DialTimeout("tcp", u.Host, time.Second)
		if err != nil {
			return
		}
		conn.Close()
	}
	t.Fatal("the server still accepts connections")
}

func exitCode(t *testing.T, srv *server) int {
	t.Helper()
	select {
	case <-srv.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not exit")
	}
	return srv.cmd.ProcessState.ExitCode()
}

func TestSIGTERMFinishesInFlightRequests(t *testing.T) {
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "Local", "provider": "local"})
	_, run := startRun(t, srv, agent, "t1")
	runURL := srv.URL + "/api/v1/runs/" + run["id"].(string)
	done := make(chan map[string]any, 1)
	go func() {
		_, res := post(t, "POST", runURL+"/execute", adminToken, map[string]any{"command": "touch started; sleep 2; echo finished"})
		done <- res
	}()
	// The command has begun: the request is in flight.
	require.Eventually(t, func() bool {
		status, _ := get(t, runURL+"/files?path=started", adminToken)
		return status == http.StatusOK
	}, 20*time.Second, 20*time.Millisecond)
	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
	waitRefusing(t, srv)
	res := <-done
	assert.Equal(t, "finished\n", res["output"], "the request in flight completes")
	assert.Equal(t, 0, exitCode(t, srv))
	assert.Contains(t, srv.logs(), `"msg":"stopped"`)
}

// A terminal's WebSocket is a hijacked connection, which the HTTP server's
// shutdown neither waits for nor closes: the server ends its shells itself
// and tells each connection why, before it exits.
func TestShutdownEndsOpenTerminals(t *testing.T) {
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "Local", "provider": "local"})
	_, run := startRun(t, srv, agent, "t1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/api/v1/runs/"+run["id"].(string)+"/terminal",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + adminToken}}})
	require.NoError(t, err)
	defer conn.CloseNow()
	require.NoError(t, conn.Write(ctx, websocket.MessageBinary, []byte("echo ready-$((1+1))\r")))
	var screen, told strings.Builder
	for !strings.Contains(screen.String(), "ready-2") {
		_, data, err := conn.Read(ctx)
		require.NoError(t, err, "the shell answers before the shutdown: %q", screen.String())
		screen.Write(data)
	}

	require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
	var err2 error
	for err2 == nil {
		var kind websocket.MessageType
		var data []byte
		kind, data, err2 = conn.Read(ctx)
		if kind == websocket.MessageText {
			told.Write(data)
		}
	}
	assert.Equal(t, websocket.StatusGoingAway, websocket.CloseStatus(err2), "closed by the server, not cut: %v", err2)
	assert.Contains(t, told.String(), `"type":"error"`)
	assert.Contains(t, told.String(), "shutting down")
	assert.Equal(t, 0, exitCode(t, srv))
}

func TestShutdownEndsOpenStreamsWithAFinalEvent(t *testing.T) {
	srv := instance(t, "AUXILIA_SHUTDOWN_TIMEOUT=1s")
	agent := bindNew(t, srv, map[string]any{"name": "Local", "provider": "local"})
	_, run := startRun(t, srv, agent, "t1")
	body, _ := json.Marshal(map[string]any{"command": "echo started; sleep 60"})
	req, err := http.NewRequest("POST", srv.URL+"/api/v1/runs/"+run["id"].(string)+"/execute", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if sc.Text() == `data: {"text":"started\n"}` {
			require.NoError(t, srv.cmd.Process.Signal(syscall.SIGTERM))
		}
	}
	stream := strings.Join(lines, "\n")
	assert.Contains(t, stream, "event: error", "the stream ends with a final event")
	assert.Contains(t, stream, `"reason":"service_unavailable"`)
	assert.Equal(t, 0, exitCode(t, srv))
}
