package daytona

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// However the daemon cuts the stream into messages, a marker or a
// character cut in two is held back until it is whole.
func TestStreamDecoderAtEveryCut(t *testing.T) {
	cp := newCapture(0)
	stream := "out é\n" + cp.open + "err ü\n" + cp.close + "more" + cp.fin + "7\n" + "ignored"
	for cut := 0; cut <= len(stream); cut++ {
		var pieces []string
		out := provider.NewOutput(provider.ExecRequest{OnOutput: func(s, text string) { pieces = append(pieces, s+":"+text) }})
		dec := &streamDecoder{cp: cp, out: out}
		done := dec.feed(stream[:cut])
		if !done {
			done = dec.feed(stream[cut:])
		}
		require.True(t, done, "cut at %d", cut)
		assert.Equal(t, 7, dec.code)
		assert.Equal(t, "out é\nerr ü\nmore", out.Result(dec.code, false, 0, 0).Output, "cut at %d", cut)
		for _, p := range pieces {
			assert.NotContains(t, p, "<<", "cut at %d: no marker leaks", cut)
			assert.Regexp(t, `^(stdout|stderr):`, p)
			assert.True(t, utf8.ValidString(p), "cut at %d: %q", cut, p)
		}
	}
}

// A fin line without a number is a wrapper that could not tell the exit code.
func TestStreamDecoderWithoutExitCode(t *testing.T) {
	cp := newCapture(0)
	out := provider.NewOutput(provider.ExecRequest{})
	dec := &streamDecoder{cp: cp, out: out}
	require.True(t, dec.feed("x"+cp.fin+"\n"))
	assert.Equal(t, missingStatus, dec.code)
}
