package opensandboxtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// execd's command API: run a command and stream its events, interrupt it.

// execdPing is how often execd sends a ping event while a command runs.
const execdPing = 3 * time.Second

type commandRequest struct {
	Command    string            `json:"command"`
	Cwd        string            `json:"cwd"`
	Background bool              `json:"background"`
	TimeoutMs  int64             `json:"timeout"`
	UID        *uint32           `json:"uid"`
	GID        *uint32           `json:"gid"`
	Envs       map[string]string `json:"envs"`
}

// validate applies execd's checks, worded as execd words them.
func (req commandRequest) validate(sb *sandbox) string {
	switch {
	case req.Command == "":
		return "Key: 'RunCommandRequest.Command' Error:Field validation for 'Command' failed on the 'required' tag"
	case req.TimeoutMs < 0:
		return "Key: 'RunCommandRequest.TimeoutMs' Error:Field validation for 'TimeoutMs' failed on the 'gte' tag"
	case req.GID != nil && req.UID == nil:
		return "uid is required when gid is provided"
	case req.Cwd == "":
		return ""
	}
	// execd resolves $VAR and ~ in cwd with its own environment here, and
	// with the command's envs too when it runs it.
	resolved, err := sb.expand(req.Cwd, nil)
	if err != nil {
		return fmt.Sprintf("cannot resolve working directory %q: %v", req.Cwd, err)
	}
	info, err := statIn(sb, resolved)
	switch {
	case err != nil && isNotExist(err):
		return fmt.Sprintf("working directory does not exist: %s: stat %s: no such file or directory", req.Cwd, resolved)
	case err != nil:
		return fmt.Sprintf("cannot access working directory %q: %v", req.Cwd, err)
	case !info.IsDir():
		return fmt.Sprintf("working directory path is not a directory: %s", req.Cwd)
	}
	return ""
}

// runCommand runs a command and streams its events, holding the stream
// open after the last one as execd does.
func runCommand(s *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, fault Fault) {
	var req commandRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		execdError(w, http.StatusBadRequest, "INVALID_REQUEST_BODY", "error parsing request, MAYBE invalid body format. "+err.Error())
		return
	}
	if msg := req.validate(sb); msg != "" {
		execdError(w, http.StatusBadRequest, "INVALID_REQUEST_BODY", "invalid request, validation error "+msg)
		return
	}
	if req.Background || req.UID != nil {
		execdError(w, http.StatusBadRequest, "NOT_SUPPORTED", "the fake execd runs foreground commands as its own user only")
		return
	}
	timeout := time.Duration(req.TimeoutMs) * time.Millisecond // 0: none, as in execd
	cwd, err := sb.expand(req.Cwd, req.Envs)
	if err != nil {
		execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error running commands resolve request cwd %s: %v", req.Cwd, err))
		return
	}

	// Like execd, the command outlives a client that leaves: only its
	// timeout, an interrupt or the sandbox's end stop it.
	ctx, cancel := context.WithCancel(sb.ctx)
	defer cancel()
	session := randomHex(16)
	interrupted := sb.track(session, cancel)
	defer sb.untrack(session)

	stream := newEventStream(w)
	cut := make(chan struct{})
	if fault.CutStream {
		stream.onFirstOutput = func() { close(cut) }
	}
	stdout := &lineEvents{stream: stream, kind: "stdout"}
	stderr := &lineEvents{stream: stream, kind: "stderr"}
	stream.send(event{Type: "init", Text: session})

	start := time.Now()
	done := make(chan result, 1)
	go func() {
		done <- s.runner.run(ctx, sb, req.Command, cwd, req.Envs, timeout, stdout, stderr)
	}()
	var res result
	pinging := time.NewTicker(execdPing)
	defer pinging.Stop()
	stream.send(event{Type: "ping", Text: "pong"})
wait:
	for {
		select {
		case res = <-done:
			break wait
		case <-pinging.C:
			stream.send(event{Type: "ping", Text: "pong"})
		case <-cut:
			// The connection drops mid-stream; like execd's, the command runs
			// on until it ends, times out or is interrupted.
			stream.close()
			fakekit.Drop(w)
			<-done
			return
		}
	}
	stdout.flush()
	stderr.flush()

	stream.send(ending(res, ctx.Err() != nil, interrupted(), time.Since(start)))
	s.hold(r, sb)
}

// hold keeps a finished command's stream open, as execd's
// --graceful-shutdown-timeout does.
func (s *Server) hold(r *http.Request, sb *sandbox) {
	d := s.opts.CompletionHold
	if d == 0 {
		d = DefaultCompletionHold
	}
	if d < 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select { // execd sleeps regardless; a client that left sees no difference
	case <-t.C:
	case <-r.Context().Done():
	case <-sb.ctx.Done():
	}
}

// ending is the event that ends a command's stream, worded as execd words
// it: Go's exec error for the bash it started.
func ending(res result, cancelled, interrupted bool, took time.Duration) event {
	fail := func(value, trace string) event {
		return event{Type: "error", Error: &errorOutput{Name: "CommandExecError", Value: value, Traceback: []string{trace}}}
	}
	switch {
	case res.err != nil:
		return fail(res.err.Error(), res.err.Error())
	case interrupted:
		return fail("-1", "signal: terminated") // an interrupt sends SIGTERM first
	case res.timedOut || cancelled:
		return fail("-1", "signal: killed")
	case res.exitCode > 128 && res.exitCode < 128+32:
		// The jail reports a shell that a signal ended as 128+n; execd, which
		// runs the shell itself, reports -1 and the signal's name.
		return fail("-1", "signal: "+syscall.Signal(res.exitCode-128).String())
	case res.exitCode != 0:
		return fail(strconv.Itoa(res.exitCode), fmt.Sprintf("exit status %d", res.exitCode))
	}
	return event{Type: "execution_complete", ExecutionTime: took.Milliseconds()}
}

// interruptCommand stops a running command, as DELETE /command?id= does.
func interruptCommand(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.URL.Query().Get("id")
	if id == "" {
		execdError(w, http.StatusBadRequest, "MISSING_QUERY", "missing query parameter 'id'")
		return
	}
	if !sb.interrupt(id) {
		execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", "error interruptting code context. no such session")
		return
	}
	w.WriteHeader(http.StatusOK)
}
