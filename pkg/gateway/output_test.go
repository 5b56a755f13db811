package gateway

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

type recordingSink struct{ parts []string }

func (r *recordingSink) output(_, text string) { r.parts = append(r.parts, text) }

func TestStreamCaptureKeepsCharactersWhole(t *testing.T) {
	var sink recordingSink
	c := newStreamCapture("stdout", 100, &sink)
	word := []byte("héllo wörld €")
	for i := range word {
		_, _ = c.Write(word[i : i+1]) // one byte at a time splits every multi-byte character
	}
	c.finish()
	for _, p := range sink.parts {
		assert.True(t, strings.ToValidUTF8(p, "?") == p, "part %q is valid UTF-8", p)
	}
	assert.Equal(t, string(word), strings.Join(sink.parts, ""))
}

func TestStreamCaptureCutsOnACharacter(t *testing.T) {
	var sink recordingSink
	c := newStreamCapture("stderr", 4, &sink)
	n, err := c.Write([]byte("abc€def"))
	assert.NoError(t, err)
	assert.Equal(t, 9, n, "the whole write is accepted, so the command is never blocked")
	_, _ = c.Write([]byte("more"))
	c.finish()
	assert.Equal(t, "abc\n"+truncationNotice("stderr", 4)+"\n", strings.Join(sink.parts, ""))
	assert.True(t, c.truncated)
}

func TestCompleteUTF8(t *testing.T) {
	for in, want := range map[string]int{"": 0, "abc": 3, "a\xe2\x82": 1, "a\xe2\x82\xac": 4, "\xf0\x9f\x98": 0, "\x80\x80": 2} {
		assert.Equal(t, want, completeUTF8([]byte(in)), "%q", in)
	}
}
