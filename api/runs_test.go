package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boundAgent is an agent bound to a new local sandbox.
func (e *env) boundAgent(tools map[string]any) (agent map[string]any, sandbox map[string]any) {
	e.t.Helper()
	sandbox = e.createSandbox(map[string]any{"name": "Local " + strings.Repeat("x", len(tools)), "provider": "local", "config": map[string]any{"timeout": 5}})
	agent = e.createAgent("Runner")
	r := e.call("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": sandbox["id"], "tools": tools})
	require.Equal(e.t, 200, r.StatusCode, "%s", r.body)
	return agent, sandbox
}

func TestRunsAndToolsOnTheLocalProvider(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, sb := e.boundAgent(nil)
		threads := "/api/v1/agents/" + agent["id"].(string) + "/threads/"
		r := e.call("POST", threads+"conv-1/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		run := r.json(t)
		assert.Equal(t, "active", run["status"])
		assert.Equal(t, "conv-1", run["thread_id"])
		sandbox := run["sandbox"].(map[string]any)
		assert.Equal(t, sb["id"], sandbox["sandbox_id"])
		assert.Equal(t, true, sandbox["created"])
		assert.Equal(t, "/api/v1/runs/"+run["id"].(string), r.Header.Get("Location"))
		base := "/api/v1/runs/" + run["id"].(string)

		res := e.call("POST", base+"/execute", e.member, map[string]any{"command": "python3 -c 'print(6*7)'"}).json(t)
		assert.Equal(t, map[string]any{"exit_code": float64(0), "output": "42\n", "truncated": false, "duration_ms": res["duration_ms"]}, res)
		res = e.call("POST", base+"/execute", e.member, map[string]any{"command": "pwd; sleep 30", "timeout": 1}).json(t)
		assert.Equal(t, float64(124), res["exit_code"])
		assert.Equal(t, "/workspace\nCommand timed out after 1 seconds", res["output"])

		require.Equal(t, 201, e.call("PUT", base+"/files?path=notes/todo.txt", e.member, "buy milk\nbuy bread\n", "Content-Type", "text/plain").StatusCode)
		e.call("PUT", base+"/files?path=notes/todo.txt", e.member, "again", "Content-Type", "text/plain").problem(t, 409, "file_exists")
		file := e.call("GET", base+"/files?path=notes/todo.txt&offset=1&limit=5", e.member, nil).json(t)
		assert.Equal(t, map[string]any{"path": "/workspace/notes/todo.txt", "content": "buy bread\n", "offset": float64(1),
			"lines": float64(1), "total_lines": float64(2), "truncated": false}, file)
		p := e.call("GET", base+"/files?path=notes/todo.txt&offset=-1&limit=x", e.member, nil).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"offset", "limit"}, fields(p), "every broken parameter")
		assert.Equal(t, map[string]any{"replacements": float64(1)},
			e.call("POST", base+"/edit", e.member, map[string]any{"path": "notes/todo.txt", "old_string": "milk", "new_string": "oat milk"}).json(t))
		p = e.call("POST", base+"/edit", e.member, map[string]any{"path": "notes/todo.txt", "old_string": "buy", "new_string": "get"}).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"old_string"}, fields(p), "an ambiguous edit is refused")
		assert.Equal(t, []any{"/workspace/notes/todo.txt"}, e.call("GET", base+"/glob?pattern=**/*.txt", e.member, nil).json(t)["paths"])
		matches := e.call("GET", base+"/grep?pattern=oat+milk", e.member, nil).json(t)["matches"]
		assert.Equal(t, []any{map[string]any{"path": "/workspace/notes/todo.txt", "line": float64(1), "text": "buy oat milk"}}, matches)
		// Beside what the run made, the instance has its own Python environment.
		listed := map[string]any{}
		for _, entry := range e.call("GET", base+"/ls", e.member, nil).json(t)["entries"].([]any) {
			listed[entry.(map[string]any)["path"].(string)] = entry.(map[string]any)["type"]
		}
		assert.Equal(t, map[string]any{"/workspace/notes": "directory", "/workspace/.venv": "directory"}, listed)

		for _, bad := range []string{"../etc/passwd", "/etc/passwd", "notes/../../root"} {
			p := e.call("GET", base+"/files?path="+bad, e.member, nil).problem(t, 422, "validation_failed")
			assert.Equal(t, []string{"path"}, fields(p), "%s leaves the workspace", bad)
		}
		// A symbolic link leading out of the workspace is a bad path like the others, not a broken sandbox.
		e.call("POST", base+"/execute", e.member, map[string]any{"command": "ln -s /etc/passwd leak && ln -s /etc out"}).json(t)
		for _, call := range []struct{ method, path string }{
			{"GET", "/files?path=leak"}, {"GET", "/files?path=out/passwd"}, {"GET", "/ls?path=out"}, {"PUT", "/files?path=out/new.txt"},
		} {
			p := e.call(call.method, base+call.path, e.member, nil).problem(t, 422, "validation_failed")
			assert.Equal(t, []string{"path"}, fields(p), "%s %s", call.method, call.path)
		}
		p = e.call("POST", base+"/edit", e.member, map[string]any{"path": "leak", "old_string": "root", "new_string": "toor"}).problem(t, 422, "validation_failed")
		assert.Contains(t, p["errors"].([]any)[0].(map[string]any)["message"], "/workspace/leak leads out of /workspace through a symbolic link")
		e.call("POST", base+"/execute", e.member, map[string]any{"command": "rm leak out"}).json(t)
		e.call("GET", base+"/files?path=missing.txt", e.member, nil).problem(t, 404, "not_found")
		e.call("GET", base+"/files?path=x&limit=0", e.member, nil).problem(t, 422, "validation_failed")
		e.call("POST", base+"/execute", e.foreign, map[string]any{"command": "id"}).problem(t, 404, "not_found")

		// A second run on the thread sees the files of the first.
		second := e.call("POST", threads+"conv-1/runs", e.member, nil).json(t)
		assert.Equal(t, false, second["sandbox"].(map[string]any)["created"])
		out := e.call("POST", "/api/v1/runs/"+second["id"].(string)+"/execute", e.member, map[string]any{"command": "cat notes/todo.txt"}).json(t)
		assert.Equal(t, "buy oat milk\nbuy bread\n", out["output"])
		e.call("POST", base+"/execute", e.member, map[string]any{"command": "true"}).problem(t, 409, "run_not_active")
		assert.Equal(t, "completed", e.call("GET", base, e.member, nil).json(t)["status"])

		thread := e.call("GET", threads+"conv-1", e.member, nil).json(t)
		assert.Equal(t, sb["id"], thread["sandbox_id"])
		assert.Equal(t, sandbox["instance_id"], thread["instance_id"])
		assert.Len(t, e.call("GET", threads+"conv-1/runs", e.member, nil).json(t)["items"], 2)
		assert.Len(t, e.call("GET", "/api/v1/agents/"+agent["id"].(string)+"/threads", e.member, nil).json(t)["items"], 1)

		done := e.call("POST", "/api/v1/runs/"+second["id"].(string)+"/complete", e.member, nil).json(t)
		assert.Equal(t, "completed", done["status"])
		require.Equal(t, 204, e.call("DELETE", threads+"conv-1", e.member, nil).StatusCode)
		e.call("GET", threads+"conv-1", e.member, nil).problem(t, 404, "not_found")
		e.call("POST", threads+"no%20spaces/runs", e.member, nil).problem(t, 422, "validation_failed")
	})
}

// "." and ".." are no thread ids: in a path they name another folder, and
// clients resolve them (written as %2E too) before sending.
func TestThreadIDsAreNotDotSegments(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		threads := "/api/v1/agents/" + e.createAgent("dots")["id"].(string) + "/threads/"
		for _, id := range []string{".", "..", "%2E", "%2e%2E", ".%2e"} {
			p := e.call("POST", threads+id+"/runs", e.member, nil).problem(t, 422, "validation_failed")
			assert.Equal(t, []string{"thread_id"}, fields(p), id)
		}
		for _, id := range []string{"...", ".a", "a..b", "..x"} {
			assert.Equal(t, 201, e.call("POST", threads+id+"/runs", e.member, nil).StatusCode, id)
		}
	})
}

func TestToolPoliciesOverHTTP(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(map[string]any{"execute": "disabled", "write_file": "needs_approval"})
		run := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		base := "/api/v1/runs/" + run["id"].(string)
		e.call("POST", base+"/execute", e.member, map[string]any{"command": "id"}).problem(t, 403, "tool_disabled")
		p := e.call("PUT", base+"/files?path=a.txt", e.member, "x").problem(t, 428, "approval_required")
		assert.Equal(t, "write_file", p["tool"])
		assert.Equal(t, 201, e.call("PUT", base+"/files?path=a.txt", e.member, "x", "Auxilia-Approval", "granted").StatusCode)
	})
}

// Replacing a file is a person's act: it needs their approval even where
// write_file is always allowed, and it is refused where write_file is disabled.
func TestOverwritingAFileNeedsAPersonsApproval(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(map[string]any{"write_file": "always_allow"})
		run := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		base := "/api/v1/runs/" + run["id"].(string)
		require.Equal(t, 201, e.call("PUT", base+"/files?path=a.txt", e.member, "first").StatusCode)
		e.call("PUT", base+"/files?path=a.txt", e.member, "second").problem(t, 409, "file_exists")
		p := e.call("PUT", base+"/files?path=a.txt&overwrite=true", e.member, "second").problem(t, 428, "approval_required")
		assert.Equal(t, "write_file", p["tool"])
		p = e.call("PUT", base+"/files?path=a.txt&overwrite=yes", e.member, "second").problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"overwrite"}, fields(p))
		assert.Equal(t, "first", e.call("GET", base+"/files?path=a.txt", e.member, nil).json(t)["content"], "nothing written yet")

		assert.Equal(t, 201, e.call("PUT", base+"/files?path=a.txt&overwrite=true", e.member, "second", "Auxilia-Approval", "granted").StatusCode)
		assert.Equal(t, "second", e.call("GET", base+"/files?path=a.txt", e.member, nil).json(t)["content"])
		e.call("PUT", base+"/files?path=.&overwrite=true", e.member, "x", "Auxilia-Approval", "granted").problem(t, 409, "file_exists")

		disabled, _ := e.boundAgent(map[string]any{"write_file": "disabled", "execute": "always_allow"})
		run = e.call("POST", "/api/v1/agents/"+disabled["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		e.call("PUT", "/api/v1/runs/"+run["id"].(string)+"/files?path=a.txt&overwrite=true", e.member, "x", "Auxilia-Approval", "granted").
			problem(t, 403, "tool_disabled")
	})
}

// Runs and threads have no version of their own: their ETag is made from
// what they show, and deleting a thread honours If-Match with it.
func TestRunsAndThreadsCarryETags(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent := e.createAgent("Talker")
		threadPath := "/api/v1/agents/" + agent["id"].(string) + "/threads/t"
		run := e.call("POST", threadPath+"/runs", e.member, nil).json(t)
		runPath := "/api/v1/runs/" + run["id"].(string)

		active := e.call("GET", runPath, e.member, nil).Header.Get("ETag")
		require.NotEmpty(t, active)
		assert.Equal(t, active, e.call("GET", runPath, e.member, nil).Header.Get("ETag"), "the same run, the same tag")
		require.Equal(t, 200, e.call("POST", runPath+"/complete", e.member, nil).StatusCode)
		assert.NotEqual(t, active, e.call("GET", runPath, e.member, nil).Header.Get("ETag"), "a completed run is another representation")

		read := e.call("GET", threadPath, e.member, nil).Header.Get("ETag")
		require.NotEmpty(t, read)
		time.Sleep(10 * time.Millisecond) // a later run, a later last_run_at
		require.Equal(t, 201, e.call("POST", threadPath+"/runs", e.member, nil).StatusCode)
		e.call("DELETE", threadPath, e.member, nil, "If-Match", read).problem(t, 412, "precondition_failed")
		current := e.call("GET", threadPath, e.member, nil).Header.Get("ETag")
		assert.Equal(t, 204, e.call("DELETE", threadPath, e.member, nil, "If-Match", read+", "+current).StatusCode,
			"a list matches when any of its tags does")
	})
}

func TestAnAgentWithoutSandboxGetsARunWithoutOne(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent := e.createAgent("Talker")
		r := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode)
		assert.Nil(t, r.json(t)["sandbox"])
	})
}

func TestExecuteStreamsServerSentEvents(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		run := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		body, _ := json.Marshal(map[string]any{"command": "echo out; echo err >&2; exit 2"})
		req, err := http.NewRequest("POST", e.srv.URL+"/api/v1/runs/"+run["id"].(string)+"/execute", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+e.member)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "text/event-stream")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		type event struct{ name, data string }
		var events []event
		sc := bufio.NewScanner(res.Body)
		var cur event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				cur.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				cur.data = strings.TrimPrefix(line, "data: ")
			case line == "":
				events = append(events, cur)
				cur = event{}
			}
		}
		require.NotEmpty(t, events)
		var text strings.Builder
		for _, ev := range events[:len(events)-1] {
			var d map[string]string
			require.NoError(t, json.Unmarshal([]byte(ev.data), &d))
			text.WriteString(ev.name + ":" + d["text"])
		}
		assert.Contains(t, text.String(), "stdout:out\n")
		assert.Contains(t, text.String(), "stderr:err\n")
		last := events[len(events)-1]
		assert.Equal(t, "exit", last.name)
		var exit map[string]any
		require.NoError(t, json.Unmarshal([]byte(last.data), &exit))
		assert.Equal(t, float64(2), exit["exit_code"])
		assert.Equal(t, false, exit["truncated"])
	})
}
