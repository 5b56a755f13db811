package main_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// putFile writes a file through the write_file tool.
func putFile(t *testing.T, srv *server, runID, path, content string) int {
	t.Helper()
	req, err := http.NewRequest("PUT", srv.URL+"/api/v1/runs/"+runID+"/files?path="+path, bytes.NewReader([]byte(content)))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

// The real binary with the local provider: a run's tools, end to end.
func TestLocalRunsEndToEnd(t *testing.T) {
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "Local", "provider": "local", "config": map[string]any{"timeout": 5}})
	status, run := startRun(t, srv, agent, "conversation-1")
	require.Equal(t, 201, status, "%v", run)
	id := run["id"].(string)

	assert.Equal(t, "42\n", execute(t, srv, id, "python3 -c 'print(6*7)'")["output"])
	timedOut := execute(t, srv, id, "sleep 30")
	assert.Equal(t, float64(124), timedOut["exit_code"], "the sandbox's timeout ends the command")
	assert.Contains(t, timedOut["output"], "Command timed out after 5 seconds")

	require.Equal(t, 201, putFile(t, srv, id, "src/app.py", "print('hello')\n"))
	assert.Equal(t, 409, putFile(t, srv, id, "src/app.py", "again"), "write_file does not overwrite")
	status, edited := post(t, "POST", srv.URL+"/api/v1/runs/"+id+"/edit", adminToken,
		map[string]any{"path": "src/app.py", "old_string": "hello", "new_string": "world"})
	require.Equal(t, 200, status, "%v", edited)
	assert.Equal(t, float64(1), edited["replacements"])
	status, file := get(t, srv.URL+"/api/v1/runs/"+id+"/files?path=src/app.py", adminToken)
	require.Equal(t, 200, status)
	assert.Equal(t, "print('world')\n", file["content"])
	_, globbed := get(t, srv.URL+"/api/v1/runs/"+id+"/glob?pattern=**/*.py", adminToken)
	assert.Equal(t, []any{"/workspace/src/app.py"}, globbed["paths"])
	_, grepped := get(t, srv.URL+"/api/v1/runs/"+id+"/grep?pattern=world", adminToken)
	assert.Equal(t, []any{map[string]any{"path": "/workspace/src/app.py", "line": float64(1), "text": "print('world')"}}, grepped["matches"])

	status, second := startRun(t, srv, agent, "conversation-1")
	require.Equal(t, 201, status)
	assert.Equal(t, "world\n", execute(t, srv, second["id"].(string), "python3 src/app.py")["output"], "a second run on the thread sees the files")

	// A disabled tool is refused.
	status, _ = post(t, "PUT", srv.URL+"/api/v1/agents/"+agent+"/sandbox", adminToken,
		map[string]any{"sandbox_id": second["sandbox"].(map[string]any)["sandbox_id"], "tools": map[string]any{"execute": "disabled"}})
	require.Equal(t, 200, status)
	status, refused := post(t, "POST", srv.URL+"/api/v1/runs/"+second["id"].(string)+"/execute", adminToken, map[string]any{"command": "id"})
	assert.Equal(t, 403, status)
	assert.Equal(t, "tool_disabled", refused["reason"])
}
