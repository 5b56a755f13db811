package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
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

// shortGrace lets a test see a dropped terminal end.
func shortGrace(o *options) { o.terminalGrace = 2 * time.Second }

// Who may open a run's terminal, and how: another workspace's member finds
// no run, a ticket opens it once, a completed run has none.
func TestTerminalIsRefusedBeforeTheUpgrade(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		run := e.startRun(agent, "refusals")
		e.call("GET", run+"/terminal", e.foreign, nil, upgradeHeaders...).problem(t, 404, "not_found")
		e.call("POST", run+"/terminal-tickets", e.foreign, nil).problem(t, 404, "not_found")
		e.call("GET", run+"/terminal", "", nil, upgradeHeaders...).problem(t, 401, "unauthorized")
		p := e.call("GET", run+"/terminal?cols=0&rows=x", e.member, nil, upgradeHeaders...).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"cols", "rows"}, fields(p))

		r := e.call("POST", run+"/terminal-tickets", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		ticket := r.json(t)["ticket"].(string)
		expires, err := time.Parse(time.RFC3339, r.json(t)["expires_at"].(string))
		require.NoError(t, err)
		assert.WithinDuration(t, time.Now().Add(30*time.Second), expires, 5*time.Second, "a ticket lasts 30 s")
		term := e.dialTerminal(run + "/terminal?ticket=" + ticket)
		term.typeKeys("echo ticket-$((2+2))\r")
		term.expect("ticket-4")
		e.call("GET", run+"/terminal?ticket="+ticket, "", nil, upgradeHeaders...).problem(t, 401, "unauthorized")
		term.typeKeys("exit\r")
		term.ended()

		other := e.startRun(agent, "other")
		r = e.call("POST", other+"/terminal-tickets", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		e.call("GET", run+"/terminal?ticket="+r.json(t)["ticket"].(string), "", nil, upgradeHeaders...).problem(t, 401, "unauthorized")

		require.Equal(t, 200, e.call("POST", other+"/complete", e.member, nil).StatusCode)
		e.call("GET", other+"/terminal", e.member, nil, upgradeHeaders...).problem(t, 409, "run_not_active")
		e.call("POST", other+"/terminal-tickets", e.member, nil).problem(t, 409, "run_not_active")
	}, shortGrace)
}

// The terminal is the execute tool's: disabled with it, and opened with
// a person's approval where it needs one (a ticket remembers it).
func TestTerminalFollowsTheExecutePolicy(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(map[string]any{"execute": "needs_approval"})
		run := e.startRun(agent, "approval")
		p := e.call("POST", run+"/terminal-tickets", e.member, nil).problem(t, 428, "approval_required")
		assert.Equal(t, "execute", p["tool"])
		e.call("GET", run+"/terminal", e.member, nil, upgradeHeaders...).problem(t, 428, "approval_required")

		term := e.dialTerminal(run+"/terminal", "Authorization", "Bearer "+e.member, "Auxilia-Approval", "granted")
		term.typeKeys("echo approved-$((1+1))\r")
		term.expect("approved-2")
		term.typeKeys("exit\r")
		term.ended()

		r := e.call("POST", run+"/terminal-tickets", e.member, nil, "Auxilia-Approval", "granted")
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		term = e.dialTerminal(run + "/terminal?ticket=" + r.json(t)["ticket"].(string))
		term.typeKeys("echo by-ticket-$((1+1))\r")
		term.expect("by-ticket-2")
		term.typeKeys("exit\r")
		term.ended()

		disabled, _ := e.boundAgent(map[string]any{"execute": "disabled", "glob": "disabled"})
		run = e.startRun(disabled, "disabled")
		e.call("GET", run+"/terminal", e.member, nil, upgradeHeaders...).problem(t, 403, "tool_disabled")
		e.call("POST", run+"/terminal-tickets", e.member, nil, "Auxilia-Approval", "granted").problem(t, 403, "tool_disabled")
	}, shortGrace)
}

// A dropped connection leaves the shell for the grace period: a new one
// takes the same shell back; past it, the shell is ended and audited.
func TestTerminalOutlivesADroppedConnectionForItsGrace(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		run := e.startRun(agent, "grace")
		auth := []string{"Authorization", "Bearer " + e.member}
		term := e.dialTerminal(run+"/terminal", auth...)
		term.typeKeys("MARK=kept-$((1+1)); echo set-$((3+3))\r")
		term.expect("set-6")
		require.NoError(t, term.conn.CloseNow())
		waitForTheDrop(t, e)

		again := e.dialTerminal(run+"/terminal", auth...)
		again.typeKeys("echo mark=$MARK\r")
		again.expect("mark=kept-2")
		require.NoError(t, again.conn.CloseNow())

		runID := strings.TrimPrefix(run, "/api/v1/runs/")
		require.Eventually(t, func() bool {
			for _, en := range e.audit("?resource_type=run&resource_id=" + runID) {
				if en["action"] == "terminal.closed" {
					return strings.Contains(en["detail"].(string), "connection dropped")
				}
			}
			return false
		}, 15*time.Second, 200*time.Millisecond, "the shell ends once its grace is over")

		fresh := e.dialTerminal(run+"/terminal", auth...)
		fresh.typeKeys("echo mark=[$MARK]\r")
		fresh.expect("mark=[]")
		fresh.typeKeys("exit\r")
		fresh.ended()
	}, shortGrace)
}

// A shell whose connection dropped goes back only to the token that opened
// it, by bearer or by a ticket that token asked for. Another token's
// connection to the run, within the grace, gets a shell of its own and sees
// nothing of the first: not what was typed, its output, its history nor its
// variables. Each taking back is audited with who did it.
func TestADroppedTerminalGoesBackOnlyToItsToken(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		run := e.startRun(agent, "shared")
		asAdmin := []string{"Authorization", "Bearer " + e.admin}
		asMember := []string{"Authorization", "Bearer " + e.member}
		byTicket := func(tok string) *wsTerm {
			r := e.call("POST", run+"/terminal-tickets", tok, nil)
			require.Equal(t, 201, r.StatusCode, "%s", r.body)
			return e.dialTerminal(run + "/terminal?ticket=" + r.json(t)["ticket"].(string))
		}
		const secret = "Zq7-admin-only"
		sawNothing := func(term *wsTerm) {
			t.Helper()
			term.typeKeys("echo pw=[$PASSWORD]; history; echo done-$((5+5))\r")
			term.expect("pw=[]")
			term.expect("done-10")
			assert.NotContains(t, term.Shown(), secret, "another token's shell shows nothing of the admin's")
		}
		takenBack := func(term *wsTerm) {
			t.Helper()
			term.typeKeys("echo pw=$PASSWORD\r")
			term.expect("pw=" + secret)
		}

		admin := e.dialTerminal(run+"/terminal", asAdmin...)
		admin.typeKeys("PASSWORD=" + secret + "; echo set-$((3+3))\r")
		admin.expect("set-6")
		require.NoError(t, admin.conn.CloseNow())
		waitForTheDrop(t, e)
		member := e.dialTerminal(run+"/terminal", asMember...)
		sawNothing(member)
		admin = e.dialTerminal(run+"/terminal", asAdmin...)
		takenBack(admin)

		require.NoError(t, admin.conn.CloseNow())
		waitForTheDrop(t, e)
		memberByTicket := byTicket(e.member)
		sawNothing(memberByTicket)
		admin = byTicket(e.admin)
		takenBack(admin)

		for _, term := range []*wsTerm{member, memberByTicket, admin} {
			term.typeKeys("exit\r")
			term.ended()
		}
		adminID := e.call("GET", "/api/v1/me", e.admin, nil).json(t)["token_id"]
		var entries []string
		for _, en := range e.audit("?resource_type=run&resource_id=" + strings.TrimPrefix(run, "/api/v1/runs/")) {
			by := en["actor"].(map[string]any)
			entries = append(entries, fmt.Sprintf("%s by %s", en["action"], by["token_name"]))
			if en["action"] == "terminal.reattached" {
				assert.Equal(t, adminID, by["token_id"], "who took it back, by token id")
				assert.NotContains(t, en["detail"], secret)
			}
		}
		assert.ElementsMatch(t, []string{
			"run.start by member@default",
			"terminal.opened by admin@default", "terminal.opened by member@default", "terminal.opened by member@default",
			"terminal.reattached by admin@default", "terminal.reattached by admin@default",
			"terminal.closed by admin@default", "terminal.closed by member@default", "terminal.closed by member@default",
		}, entries)
	})
}

// A run's shells are bounded whoever holds them, dropped ones included: at
// the limit, another token is refused (its ticket too) rather than handed
// the dropped shell, which its own token still takes back.
func TestAnotherTokenAtTheTerminalLimitIsRefusedNotHandedTheDroppedShell(t *testing.T) {
	e := newEnv(t, storetest.Open(t, store.SQLite))
	agent, _ := e.boundAgent(nil)
	run := e.startRun(agent, "full")
	admin := e.dialTerminal(run+"/terminal", "Authorization", "Bearer "+e.admin)
	admin.typeKeys("ADMIN=kept; echo admin-$((2+2))\r")
	admin.expect("admin-4")
	require.NoError(t, admin.conn.CloseNow())
	var open []*wsTerm
	for i := range 3 {
		term := e.dialTerminal(run+"/terminal", "Authorization", "Bearer "+e.member)
		term.typeKeys(fmt.Sprintf("echo member-[$ADMIN]-$((%d*10))\r", i+1))
		term.expect(fmt.Sprintf("member-[]-%d", (i+1)*10))
		open = append(open, term)
	}

	e.call("POST", run+"/terminal-tickets", e.member, nil).problem(t, 409, "terminal_limit")
	e.call("GET", run+"/terminal", e.member, nil, upgradeHeaders...).problem(t, 409, "terminal_limit")
	r := e.call("POST", run+"/terminal-tickets", e.admin, nil)
	require.Equal(t, 201, r.StatusCode, "%s", r.body)
	admin = e.dialTerminal(run + "/terminal?ticket=" + r.json(t)["ticket"].(string))
	admin.typeKeys("echo admin=$ADMIN\r")
	admin.expect("admin=kept")
	for _, term := range append(open, admin) {
		term.typeKeys("exit\r")
		term.ended()
	}
}

// A provider whose instances have no terminal is named in the refusal.
func TestTerminalOnAProviderWithoutOne(t *testing.T) {
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echotest.Kind{})
	eachDB(t, func(t *testing.T, e *env) {
		srv := echotest.NewServer(t)
		r := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Echo", "provider": "echo", "url": srv.URL, "secret": srv.Token})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		agent := e.createAgent("Echoer")
		r = e.send("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": r.json(t)["id"]})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		r = e.send("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		run := "/api/v1/runs/" + r.json(t)["id"].(string)
		p := e.send("GET", run+"/terminal", e.member, nil, upgradeHeaders...).problem(t, 422, "terminal_unsupported")
		assert.Equal(t, "echo", p["provider"])
		assert.Contains(t, p["detail"], "echo")
	}, func(o *options) { o.kinds = kinds })
}

// A run keeps at most four shells open on a server: a fifth is refused
// before the upgrade, and a place comes back when a shell ends. Another
// run's terminals are counted apart.
func TestTerminalsPerRunAreBounded(t *testing.T) {
	e := newEnv(t, storetest.Open(t, store.SQLite))
	agent, _ := e.boundAgent(nil)
	run := e.startRun(agent, "many")
	auth := []string{"Authorization", "Bearer " + e.member}
	shell := func(path string, n int) *wsTerm {
		term := e.dialTerminal(path, auth...)
		term.typeKeys(fmt.Sprintf("echo shell-$((%d*10))\r", n))
		term.expect(fmt.Sprintf("shell-%d", n*10))
		return term
	}
	var open []*wsTerm
	for i := range 4 {
		open = append(open, shell(run+"/terminal", i+1))
	}
	p := e.send("GET", run+"/terminal", e.member, nil, upgradeHeaders...).problem(t, 409, "terminal_limit")
	assert.Contains(t, p["detail"], "4 terminals")
	e.send("POST", run+"/terminal-tickets", e.member, nil).problem(t, 409, "terminal_limit") // the console's first step
	open = append(open, shell(e.startRun(agent, "other")+"/terminal", 5))

	open[0].typeKeys("exit\r")
	open[0].ended()
	open[0] = shell(run+"/terminal", 6) // the ended shell's place
	for _, term := range open {
		term.typeKeys("exit\r")
		term.ended()
	}
}

// A terminal's WebSocket is a hijacked connection, which the HTTP server's
// shutdown neither waits for nor closes: stopping the terminals, as the
// server does when it shuts down, ends every shell, attached or waiting for
// its connection, tells each connection why, and opens no more.
func TestTerminalsEndWhenTheServerStops(t *testing.T) {
	e := newEnv(t, storetest.Open(t, store.SQLite))
	agent, _ := e.boundAgent(nil)
	run := e.startRun(agent, "stopping")
	auth := []string{"Authorization", "Bearer " + e.member}
	attached := e.dialTerminal(run+"/terminal", auth...)
	attached.typeKeys("echo up-$((2+2))\r")
	attached.expect("up-4")
	dropped := e.dialTerminal(e.startRun(agent, "dropped")+"/terminal", auth...)
	dropped.typeKeys("echo up-$((3+3))\r")
	dropped.expect("up-6")
	require.NoError(t, dropped.conn.CloseNow()) // its shell waits for another connection

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e.terminals.Stop(ctx)
	status, texts := attached.ended()
	assert.Equal(t, websocket.StatusGoingAway, status)
	require.Len(t, texts, 1)
	assert.Equal(t, "error", texts[0]["type"])
	assert.Contains(t, texts[0]["message"], "shutting down")

	closed := 0
	for _, en := range e.audit("?action=terminal.closed") {
		if strings.Contains(en["detail"].(string), "the server shut down") {
			closed++
		}
	}
	assert.Equal(t, 2, closed, "both shells ended, the dropped one too")
	e.call("GET", run+"/terminal", e.member, nil, upgradeHeaders...).problem(t, 503, "service_unavailable")
}

// waitForTheDrop waits for the server to see a dropped connection: one made
// before it does would open a shell of its own instead of taking one back.
func waitForTheDrop(t *testing.T, e *env) {
	t.Helper()
	require.Eventually(t, func() bool { return e.terminals.Waiting() == 1 }, 10*time.Second, 10*time.Millisecond,
		"the server never saw the connection drop")
}
