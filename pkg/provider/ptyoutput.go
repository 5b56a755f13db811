package provider

import (
	"errors"
	"io"
	"sync"
)

// PTYOutput is the reading half of a PTY a provider streams as events:
// Read gives the shell's output as its events bring it, and io.EOF once
// the shell has ended; ExitCode says how. Next returns the stream's next
// event, io.EOF when the stream ends; it is called by one Read at a time.
// A stream that failed stays failed: every later Read says so.
type PTYOutput struct {
	Next func() (PTYEvent, error)

	readMu  sync.Mutex
	pending []byte
	ended   bool
	failed  error

	mu       sync.Mutex
	exitCode int
	exited   bool
}

// PTYEvent is one event of a shell's stream: output, or the shell's end,
// with its exit code when it exited (Exited false: killed, or not said).
type PTYEvent struct {
	Output   []byte
	Ended    bool
	Exited   bool
	ExitCode int
}

// Read implements io.Reader over the events.
func (o *PTYOutput) Read(p []byte) (int, error) {
	o.readMu.Lock()
	defer o.readMu.Unlock()
	for len(o.pending) == 0 {
		switch {
		case o.failed != nil:
			return 0, o.failed
		case o.ended:
			return 0, io.EOF
		}
		ev, err := o.Next()
		switch {
		case errors.Is(err, io.EOF):
			o.ended = true
		case err != nil:
			o.failed = err
		case ev.Ended:
			o.mu.Lock()
			o.exitCode, o.exited = ev.ExitCode, ev.Exited
			o.mu.Unlock()
			o.ended = true
		default:
			o.pending = append(o.pending, ev.Output...)
		}
	}
	n := copy(p, o.pending)
	o.pending = o.pending[n:]
	return n, nil
}

// ExitCode is the shell's exit status once Read has returned io.EOF; -1
// when it was killed, or the stream did not say.
func (o *PTYOutput) ExitCode() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.exited {
		return -1
	}
	return o.exitCode
}
