package provider

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// DefaultOutputLimit is the output kept of a command when the caller sets none.
const DefaultOutputLimit = 256 << 10

// TimeoutExitCode is the exit code of a command that ran out of time (as timeout(1) reports).
const TimeoutExitCode = 124

// TimeoutNotice ends the output of a command that ran out of time.
func TimeoutNotice(timeout time.Duration) string {
	return fmt.Sprintf("Command timed out after %d seconds", int(timeout.Round(time.Second)/time.Second))
}

// TruncationNotice ends output cut at limit bytes.
func TruncationNotice(limit int) string {
	return fmt.Sprintf("[output truncated: only the first %d bytes are shown]", limit)
}

// Output collects a command's output up to a limit and relays it as it
// arrives. Providers use it so that every one caps and words output alike.
type Output struct {
	mu        sync.Mutex
	limit     int
	onOutput  func(stream, text string)
	buf       strings.Builder
	truncated bool
}

// NewOutput returns a collector for req.
func NewOutput(req ExecRequest) *Output {
	limit := req.OutputLimit
	if limit <= 0 {
		limit = DefaultOutputLimit
	}
	return &Output{limit: limit, onOutput: req.OnOutput}
}

// Write records text from stream ("stdout" or "stderr").
func (o *Output) Write(stream, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.truncated || text == "" {
		return
	}
	if room := o.limit - o.buf.Len(); len(text) > room {
		text = cutUTF8(text, room)
		o.truncated = true
	}
	o.buf.WriteString(text)
	if o.onOutput != nil && text != "" {
		o.onOutput(stream, text)
	}
}

// Result finishes the output for a command that exited with code.
func (o *Output) Result(code int, timedOut bool, timeout, took time.Duration) ExecResult {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := o.buf.String()
	if o.truncated {
		out = withLine(out, TruncationNotice(o.limit))
	}
	if timedOut {
		code = TimeoutExitCode
		out = withLine(out, TimeoutNotice(timeout))
	}
	return ExecResult{ExitCode: code, Output: out, Truncated: o.truncated, TimedOut: timedOut, Duration: took}
}

func withLine(s, line string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + line
}

// cutUTF8 returns at most n bytes of s without splitting a character.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if n >= len(s) {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
