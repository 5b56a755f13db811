package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startRun starts a run of agent on a new thread and returns its path.
func (e *env) startRun(agent map[string]any, thread string) string {
	e.t.Helper()
	r := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/"+thread+"/runs", e.member, nil)
	require.Equal(e.t, 201, r.StatusCode, "%s", r.body)
	return "/api/v1/runs/" + r.json(e.t)["id"].(string)
}

// A browser's terminal on the local provider: a real bash in the run's
// jail, driven over the WebSocket, and audited without its keystrokes.
func TestTerminalOverWebSocketOnTheLocalProvider(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		run := e.startRun(agent, "term")
		term := e.dialTerminal(run+"/terminal?cols=100&rows=30", "Authorization", "Bearer "+e.member)

		term.typeKeys("stty size\r")
		term.expect("30 100\r\n")
		term.typeKeys("cd /tmp && pwd\r")
		term.expect("/tmp\r\n")
		term.typeKeys("pwd\r")
		term.expect("/tmp\r\n")

		term.typeKeys("python3\r")
		term.expect(">>> ")
		term.typeKeys("print(6*7)\r")
		term.expect("42\r\n")
		term.typeKeys("exit()\r")

		term.typeKeys("echo sleeping-$((1+1)); sleep 100\r")
		term.expect("sleeping-2")
		time.Sleep(500 * time.Millisecond)
		term.typeKeys("\x03")
		time.Sleep(200 * time.Millisecond)
		term.typeKeys("echo status=$?\r")
		term.expect("status=130")

		term.control(map[string]any{"type": "resize", "cols": 120, "rows": 40})
		term.typeKeys("stty size\r")
		term.expect("40 120\r\n")

		term.typeKeys("exit 3\r")
		status, texts := term.ended()
		assert.Equal(t, websocket.StatusNormalClosure, status)
		assert.Equal(t, []map[string]any{{"type": "exit", "code": 3.0}}, texts)

		runID := strings.TrimPrefix(run, "/api/v1/runs/")
		entries := e.audit("?resource_type=run&resource_id=" + runID)
		var terminal []string
		for _, en := range entries {
			if strings.HasPrefix(en["action"].(string), "terminal.") {
				terminal = append(terminal, en["action"].(string)+" "+en["outcome"].(string))
				assert.Equal(t, "member@default", en["actor"].(map[string]any)["token_name"], "who opened it")
				for _, typed := range []string{"stty", "python", "print", "sleep", "/tmp", "42"} {
					assert.NotContains(t, en["detail"], typed, "no keystroke nor output is audited")
				}
			}
		}
		assert.ElementsMatch(t, []string{"terminal.opened success", "terminal.closed success"}, terminal)
	})
}
