package daytona

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// executeRequest is the body of the toolbox's POST /process/execute.
type executeRequest struct {
	Command string `json:"command"`
	Cwd     string `json:"cwd,omitempty"`
	// Timeout is always sent: without one the daemon waits for ever.
	Timeout uint32 `json:"timeout"`
}

type executeAnswer struct {
	ExitCode int    `json:"exitCode"`
	Result   string `json:"result"`
}

// Execute runs a command in the sandbox's work dir, in a session of the
// daemon's where it has them (see executeInSession), with one
// /process/execute call where it does not; which, is learnt once per
// instance.
func (c *Client) Execute(ctx context.Context, inst provider.Instance, req provider.ExecRequest) (provider.ExecResult, error) {
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.cfg.CommandTimeout()
	}
	secs := uint32(math.Max(1, math.Ceil(timeout.Seconds())))
	timeout = time.Duration(secs) * time.Second
	if _, plain := c.withoutSessions.Load(inst.ID); !plain {
		res, err := c.executeInSession(ctx, inst, req, timeout)
		if !errors.Is(err, errNoSessions) {
			return res, err
		}
		c.withoutSessions.Store(inst.ID, true)
	}
	return c.executePlain(ctx, inst, req, timeout)
}

// executePlain runs a command with /process/execute. The daemon answers
// when the command ends: a non-zero exit is still a 200, a timeout a 408
// with no output, which is then fetched from the file the wrapper kept it
// in. A caller that gives up has the command stopped by a second command.
func (c *Client) executePlain(ctx context.Context, inst provider.Instance, req provider.ExecRequest, timeout time.Duration) (provider.ExecResult, error) {
	const op = "execute"
	secs := uint32(timeout / time.Second)
	cp := newCapture(req.OutputLimit)
	body, err := json.Marshal(executeRequest{Command: daemonCommand(cp.script(req.Command)), Cwd: inst.WorkDir, Timeout: secs})
	if err != nil {
		return provider.ExecResult{}, failure(provider.ErrFailed, op, "%s", err)
	}
	began := time.Now()
	ans, err := c.toolbox(ctx, inst, toolboxCall{
		op: op, method: http.MethodPost, path: "/process/execute",
		body: body, contentType: "application/json",
		timeout: timeout + c.waits.Request, // the command's own time, then as long as any call
	})
	if err != nil {
		if ctx.Err() != nil {
			c.interrupt(inst, cp)
		}
		return provider.ExecResult{}, err
	}
	took := time.Since(began)
	out := provider.NewOutput(req)
	switch ans.Status {
	case http.StatusOK:
		var res executeAnswer
		if err := json.Unmarshal(ans.Body, &res); err != nil {
			return provider.ExecResult{}, failure(provider.ErrFailed, op, "the answer is not a command's result: %s", string(ans.Body))
		}
		cp.replay(res.Result, out)
		return out.Result(res.ExitCode, false, timeout, took), nil
	case http.StatusRequestTimeout:
		cp.replay(c.collectTimedOut(ctx, inst, cp), out)
		return out.Result(provider.TimeoutExitCode, true, timeout, took), nil
	default:
		return provider.ExecResult{}, toolboxError(op, ans)
	}
}

// collectTimedOut fetches what a command killed at its timeout wrote, with
// a second, short command. What cannot be fetched is lost.
func (c *Client) collectTimedOut(ctx context.Context, inst provider.Instance, cp capture) string {
	body, _ := json.Marshal(executeRequest{Command: daemonCommand(cp.collectScript()), Timeout: uint32(collectTimeout / time.Second)})
	ans, err := c.toolbox(ctx, inst, toolboxCall{
		op: "execute", method: http.MethodPost, path: "/process/execute",
		body: body, contentType: "application/json", timeout: collectTimeout + c.waits.Request,
	})
	var res executeAnswer
	if err != nil || ans.Status != http.StatusOK || json.Unmarshal(ans.Body, &res) != nil {
		return ""
	}
	return res.Result
}

// interrupt kills a command its caller gave up on, which the daemon would
// run on to its timeout, with a short command of its own, and removes its
// folder (all it does for a command of a session, killed with the session). It is sent even
// though the caller has left, once, straight to the toolbox: a sandbox that
// is not running runs no command, and a command it cannot reach runs on.
func (c *Client) interrupt(inst provider.Instance, cp capture) {
	base := stateOf(inst).ToolboxProxyURL
	if base == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), interruptTimeout+c.waits.Request)
	defer cancel()
	body, _ := json.Marshal(executeRequest{Command: daemonCommand(cp.stopScript()), Timeout: uint32(interruptTimeout / time.Second)})
	_, _ = c.caller.Do(ctx, c.toolboxRequest(base, inst.ID, toolboxCall{
		op: "interrupt", method: http.MethodPost, path: "/process/execute",
		body: body, contentType: "application/json", timeout: interruptTimeout + c.waits.Request,
	}).call())
}

// interruptTimeout bounds the command that interrupts another.
const interruptTimeout = 10 * time.Second

// maxArgument is the longest argument Linux passes to a program
// (MAX_ARG_STRLEN), its closing NUL included.
const maxArgument = 128 << 10

// daemonCommand is a script as sent to the daemon. Daemons before v0.156
// run a command without a shell, split into arguments at spaces outside
// quotes, so a script of several lines does not start there: the script
// goes encoded into one sh -c argument, which they run and newer daemons,
// which read the command as their shell's script, run too (Daytona's SDKs
// of that time sent commands so). A script too long for one argument is
// sent as it is, which only newer daemons run.
func daemonCommand(script string) string {
	encoded := `sh -c "echo '` + base64.StdEncoding.EncodeToString([]byte(script)) + `' | base64 -d | sh"`
	if len(encoded) >= maxArgument {
		return script
	}
	return encoded
}

// collectTimeout bounds the command that fetches a timed-out command's output.
const collectTimeout = 30 * time.Second
