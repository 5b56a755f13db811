package daytona

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// errNoSessions is a daemon without /process/session: an old one.
var errNoSessions = errors.New("the daemon has no sessions")

// executeInSession runs a command in a session of the daemon's own, made
// for it and deleted after it: one session per command, because a
// session's shell runs its commands one after the other (two commands of
// one thread at once would wait on each other) and because deleting it is
// how the daemon kills a command and all it started, which must not touch
// another command. A warm command costs four toolbox calls: create the
// session, start the command (runAsync), follow its log over a WebSocket,
// delete the session. The exit code comes at the end of the log (see
// streamScript), so it needs no call of its own, and the follow is left as
// soon as it has come, without the second the daemon waits before it
// closes the stream. The output reaches req.OnOutput as the daemon streams
// it. At the timeout, or when the caller gives up, the command is
// interrupted (its group and all it marked are killed) and the session
// deleted: the delete alone does not reach a command in a session of its
// own.
func (c *Client) executeInSession(ctx context.Context, inst provider.Instance, req provider.ExecRequest, timeout time.Duration) (provider.ExecResult, error) {
	const op = "execute"
	session := "auxilia-" + randomID()
	cp := newCapture(req.OutputLimit)
	base, err := c.toolboxBase(ctx, op, inst)
	if err != nil {
		return provider.ExecResult{}, err
	}
	body, _ := json.Marshal(map[string]string{"sessionId": session})
	ans, err := c.toolbox(ctx, inst, toolboxCall{op: op, method: http.MethodPost, path: "/process/session", body: body, contentType: "application/json"})
	switch {
	case err != nil:
		return provider.ExecResult{}, err
	case ans.Status == http.StatusNotFound && !structured(ans):
		return provider.ExecResult{}, errNoSessions // gin's 404 for a route it does not have
	case ans.Status != http.StatusCreated && ans.Status != http.StatusOK:
		return provider.ExecResult{}, toolboxError(op, ans)
	}
	finished := false
	defer func() {
		if !finished { // killed mid-way, if it started: the session's delete does not reach it
			c.interrupt(inst, cp)
		}
		c.deleteSession(base, inst, session)
	}()

	began := time.Now()
	cmdID, err := c.startInSession(ctx, inst, session, cp.streamScript(req.Command, inst.WorkDir))
	if err != nil {
		return provider.ExecResult{}, err
	}
	out := provider.NewOutput(req)
	dec := &streamDecoder{cp: cp, out: out}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err = c.followLog(runCtx, base, inst, session, cmdID, dec)
	took := time.Since(began)
	switch {
	case err == nil && dec.done:
		finished = true
		return out.Result(dec.code, false, timeout, took), nil
	case err == nil:
		// The log ended without the fin line: the daemon's word on the exit code.
		dec.flush()
		code, err := c.sessionExitCode(ctx, inst, session, cmdID)
		if err != nil {
			return provider.ExecResult{}, err
		}
		finished = true
		return out.Result(code, false, timeout, took), nil
	case ctx.Err() != nil:
		return provider.ExecResult{}, provider.RoundTripError(ctx, providerName, op, ctx.Err())
	case runCtx.Err() != nil:
		dec.flush()
		return out.Result(provider.TimeoutExitCode, true, timeout, took), nil
	default:
		return provider.ExecResult{}, err
	}
}

// startInSession starts script in the session without waiting for it, and
// returns the command's id.
func (c *Client) startInSession(ctx context.Context, inst provider.Instance, session, script string) (string, error) {
	const op = "execute"
	// runAsync, and async as daemons before it named it; the script in the
	// form every daemon's shell runs, inside a subshell when it is too long
	// for that form, so that no exit in it ends the session's shell.
	command := daemonCommand(script)
	if command == script {
		command = "(\n" + script + "\n)"
	}
	body, err := json.Marshal(map[string]any{"command": command, "runAsync": true, "async": true})
	if err != nil {
		return "", failure(provider.ErrFailed, op, "%s", err)
	}
	ans, err := c.toolbox(ctx, inst, toolboxCall{op: op, method: http.MethodPost,
		path: "/process/session/" + url.PathEscape(session) + "/exec", body: body, contentType: "application/json"})
	if err != nil {
		return "", err
	}
	if ans.Status != http.StatusAccepted && ans.Status != http.StatusOK {
		return "", toolboxError(op, ans)
	}
	var started struct {
		CmdID string `json:"cmdId"`
	}
	if json.Unmarshal(ans.Body, &started) != nil || started.CmdID == "" {
		return "", failure(provider.ErrFailed, op, "the daemon started no command: %s", string(ans.Body))
	}
	return started.CmdID, nil
}

// followLog feeds dec the command's log as the daemon streams it, over a
// WebSocket (the daemon follows a log only so), until the fin line or the
// end of the stream.
func (c *Client) followLog(ctx context.Context, base string, inst provider.Instance, session, cmdID string, dec *streamDecoder) error {
	const op = "execute"
	u := strings.TrimSuffix(base, "/") + "/" + url.PathEscape(inst.ID) + "/process/session/" +
		url.PathEscape(session) + "/command/" + url.PathEscape(cmdID) + "/logs?follow=true"
	conn, err := c.dialToolbox(ctx, op, u)
	if err != nil {
		return err
	}
	defer conn.CloseNow()
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
				return nil
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return failure(provider.ErrUnreachable, op, "the command's output stream broke: %s", err)
		}
		if dec.feed(string(data)) {
			return nil
		}
	}
}

// sessionExitCode asks the daemon for a command's exit code.
func (c *Client) sessionExitCode(ctx context.Context, inst provider.Instance, session, cmdID string) (int, error) {
	const op = "execute"
	ans, err := c.toolbox(ctx, inst, toolboxCall{op: op, method: http.MethodGet,
		path: "/process/session/" + url.PathEscape(session) + "/command/" + url.PathEscape(cmdID)})
	if err != nil {
		return 0, err
	}
	if ans.Status != http.StatusOK {
		return 0, toolboxError(op, ans)
	}
	var command struct {
		ExitCode *int `json:"exitCode"`
	}
	if json.Unmarshal(ans.Body, &command) != nil || command.ExitCode == nil {
		return 0, failure(provider.ErrFailed, op, "the command's output ended, yet the daemon has no exit code for it: %s", string(ans.Body))
	}
	return *command.ExitCode, nil
}

// deleteSession deletes a session, which kills whatever of it still runs.
// It is sent even when the caller has left, once, straight to the toolbox
// at base: a command it cannot reach runs on.
func (c *Client) deleteSession(base string, inst provider.Instance, session string) {
	ctx, cancel := context.WithTimeout(context.Background(), c.waits.Request)
	defer cancel()
	_, _ = c.caller.Do(ctx, c.toolboxRequest(base, inst.ID, toolboxCall{
		op: "delete session", method: http.MethodDelete, path: "/process/session/" + url.PathEscape(session),
	}).call())
}

// dialToolbox opens a WebSocket to the daemon through the toolbox proxy,
// with no limit on a message's size. A refusal before the upgrade is the
// daemon's (or the proxy's) answer, read as any toolbox answer.
func (c *Client) dialToolbox(ctx context.Context, op, u string) (*websocket.Conn, error) {
	header := http.Header{}
	header.Set("Authorization", "Bearer "+c.apiKey)
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: c.http, HTTPHeader: header})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			body := []byte(nil)
			if resp.Body != nil { // the first KiB of the refusal
				body, _ = io.ReadAll(resp.Body)
			}
			return nil, toolboxError(op, answer{Status: resp.StatusCode, Header: resp.Header, Body: body})
		}
		return nil, provider.RoundTripError(ctx, providerName, op, err)
	}
	conn.SetReadLimit(-1)
	return conn, nil
}
