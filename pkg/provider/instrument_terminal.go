package provider

import (
	"context"
	"time"
)

// instrumentedTerminal is an instrumented client whose provider opens
// terminals: Instrument gives one only then, so that a wrapped client is a
// TerminalOpener exactly when the client it wraps is.
type instrumentedTerminal struct {
	instrumented
	opener TerminalOpener
}

// OpenTerminal is counted and timed until the terminal opens; a failure
// on it afterwards is blanked of the secret as well.
func (i instrumentedTerminal) OpenTerminal(ctx context.Context, inst Instance, size TermSize) (PTY, error) {
	start := time.Now()
	pty, err := i.opener.OpenTerminal(ctx, inst, size)
	i.observe("open_terminal", start, &err)
	if err != nil {
		return nil, err
	}
	return scrubbedPTY{pty: pty, secret: i.secret}, nil
}

// scrubbedPTY is a PTY whose errors never carry the provider's secret.
// io.EOF passes through as it is.
type scrubbedPTY struct {
	pty    PTY
	secret string
}

func (s scrubbedPTY) Read(p []byte) (int, error) {
	n, err := s.pty.Read(p)
	return n, ScrubError(err, s.secret)
}

func (s scrubbedPTY) Write(p []byte) (int, error) {
	n, err := s.pty.Write(p)
	return n, ScrubError(err, s.secret)
}

func (s scrubbedPTY) Resize(ctx context.Context, size TermSize) error {
	return ScrubError(s.pty.Resize(ctx, size), s.secret)
}

func (s scrubbedPTY) ExitCode() int { return s.pty.ExitCode() }

func (s scrubbedPTY) Close() error { return ScrubError(s.pty.Close(), s.secret) }
