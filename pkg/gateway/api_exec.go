package gateway

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// maxCommandBytes bounds a command line; scripts belong in files.
const maxCommandBytes = 256 << 10

// execRequest is the body of POST /sandboxes/{id}/exec.
type execRequest = wire.ExecRequest

func checkExec(q execRequest) []FieldError {
	var errs []FieldError
	switch {
	case strings.TrimSpace(q.Command) == "":
		errs = append(errs, FieldError{Field: "command", Message: "is required"})
	case len(q.Command) > maxCommandBytes:
		errs = append(errs, FieldError{Field: "command", Message: fmt.Sprintf("must be at most %d bytes", maxCommandBytes)})
	case strings.ContainsRune(q.Command, 0):
		errs = append(errs, FieldError{Field: "command", Message: "must not contain NUL bytes"})
	}
	if q.Timeout != nil && (*q.Timeout < minExecTimeout || *q.Timeout > maxExecTimeout) {
		errs = append(errs, FieldError{Field: "timeout", Message: fmt.Sprintf("must be from %d to %d seconds", minExecTimeout, maxExecTimeout)})
	}
	if q.OutputLimit != nil && (*q.OutputLimit < 1 || *q.OutputLimit > maxStreamOutput) {
		errs = append(errs, FieldError{Field: "output_limit", Message: fmt.Sprintf("must be from 1 to %d bytes", maxStreamOutput)})
	}
	return errs
}

// exitEvent is how a command ended: the stream's last event.
type exitEvent = wire.ExitEvent

// execResult is the plain JSON answer: the exit and both streams' text.
type execResult struct {
	exitEvent
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

func (s *Server) execute(w http.ResponseWriter, r *http.Request) error {
	sb, err := s.lookup(r)
	if err != nil {
		return err
	}
	var q execRequest
	if err := decodeJSON(w, r, &q, false); err != nil {
		return err
	}
	if errs := checkExec(q); len(errs) > 0 {
		return invalid(errs)
	}
	timeout, limit := defaultTimeout, maxStreamOutput
	if q.Timeout != nil {
		timeout = *q.Timeout
	}
	if q.OutputLimit != nil {
		limit = *q.OutputLimit
	}
	job := sb.job()
	job.Command, job.Timeout = q.Command, time.Duration(timeout)*time.Second

	// The command ends when the caller goes away or the sandbox is deleted.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stopOnDelete := context.AfterFunc(sb.ctx, cancel)
	defer stopOnDelete()
	sb.begin()
	defer sb.end()

	if wantsEventStream(r) {
		return s.executeStreaming(ctx, w, job, limit)
	}
	var out collectedOutput
	exit, err := s.run(ctx, job, limit, &out)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, execResult{exitEvent: exit, Stdout: out.stdout.String(), Stderr: out.stderr.String()})
	return nil
}

// executeStreaming relays output as server-sent events and ends with an exit (or error) event.
func (s *Server) executeStreaming(ctx context.Context, w http.ResponseWriter, job Job, limit int) error {
	events := newEventStream(w)
	stop, done := make(chan struct{}), make(chan struct{})
	go events.keepAlive(stop, done)
	res, err := s.run(ctx, job, limit, events)
	close(stop)
	<-done
	switch {
	case err != nil && !events.isStarted():
		return err
	case err != nil:
		events.send("error", problemOf(err))
	default:
		events.send("exit", res)
	}
	return nil
}

// run runs a job through the launcher, capping each stream at limit bytes.
func (s *Server) run(ctx context.Context, job Job, limit int, sink outputSink) (exitEvent, error) {
	stdout := newStreamCapture("stdout", limit, sink)
	stderr := newStreamCapture("stderr", limit, sink)
	out, err := s.launcher.Run(ctx, job, stdout, stderr)
	stdout.finish()
	stderr.finish()
	if err != nil {
		if ctx.Err() != nil {
			return exitEvent{}, failure(http.StatusServiceUnavailable, auxilia.CodeUnavailable, "the command was cancelled: the sandbox was deleted or the gateway is stopping").about(wire.SubjectCommand)
		}
		return exitEvent{}, failure(http.StatusInternalServerError, auxilia.CodeInternal, "the sandbox could not run the command: "+err.Error()).about(wire.SubjectLauncher)
	}
	return exitEvent{
		ExitCode: out.ExitCode, TimedOut: out.TimedOut, DurationMS: out.Duration.Milliseconds(),
		StdoutTruncated: stdout.truncated, StderrTruncated: stderr.truncated,
	}, nil
}

func wantsEventStream(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/event-stream" {
			return true
		}
	}
	return false
}
