package sse_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/client/sse"
)

func readAll(t *testing.T, r io.Reader, opts sse.Options) ([]string, error) {
	t.Helper()
	events := sse.NewReader(r, opts)
	var out []string
	for {
		ev, err := events.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev.Name+"="+string(ev.Data))
		require.Less(t, len(out), 10000, "the reader must end")
	}
}

func TestReaderReadsEvents(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		opts         sse.Options
		want         []string
		err          error
	}{
		{"named events", "event: stdout\ndata: {\"text\":\"a\"}\n\nevent: exit\ndata: {}\n\n", sse.Options{}, []string{`stdout={"text":"a"}`, "exit={}"}, io.EOF},
		{"comments and other fields skipped", ": keepalive\n\nid: 7\nretry: 10\nevent: x\ndata:1\n\n", sse.Options{}, []string{"x=1"}, io.EOF},
		{"data over lines", "data: a\ndata: b\n\n", sse.Options{}, []string{"=a\nb"}, io.EOF},
		{"crlf", "event: x\r\ndata: 1\r\n\r\n", sse.Options{}, []string{"x=1"}, io.EOF},
		{"an empty stream", "", sse.Options{}, nil, io.EOF},
		{"cut inside an event", "event: x\ndata: 1\n\nevent: y\ndata: {\"te", sse.Options{}, []string{"x=1"}, sse.ErrCut},
		{"cut before the blank line", "event: x\ndata: 1\n", sse.Options{}, nil, sse.ErrCut},
		{"ended before the last event", "event: stdout\ndata: 1\n\n", sse.Options{Last: "exit"}, []string{"stdout=1"}, sse.ErrCut},
		{"ended after the last event", "event: exit\ndata: 0\n\n", sse.Options{Last: "exit"}, []string{"exit=0"}, io.EOF},
		{"bare lines are data when asked", "{\"a\":1}\n\n", sse.Options{Bare: true}, []string{`={"a":1}`}, io.EOF},
		{"bare lines are skipped otherwise", "{\"a\":1}\n\n", sse.Options{}, nil, io.EOF},
		{"a whole line is an event at once", "{\"a\":1}\n{\"b\":2}\n", sse.Options{Bare: true, Whole: isBrace}, []string{`={"a":1}`, `={"b":2}`}, io.EOF},
		{"a whole last line without its break", "{\"a\":1}", sse.Options{Bare: true, Whole: isBrace}, []string{`={"a":1}`}, io.EOF},
		{"a cut last line", "{\"a\":1", sse.Options{Bare: true, Whole: isBrace}, nil, sse.ErrCut},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAll(t, strings.NewReader(c.stream), c.opts)
			assert.Equal(t, c.want, got)
			assert.ErrorIs(t, err, c.err)
		})
	}
}

func isBrace(data []byte) bool { return strings.HasSuffix(string(data), "}") }

// A cut is told apart from a clean end, and is an unexpected EOF to callers
// that check only for that.
func TestACutIsAnUnexpectedEOF(t *testing.T) {
	assert.ErrorIs(t, sse.ErrCut, io.ErrUnexpectedEOF)
	assert.NotErrorIs(t, sse.ErrCut, io.EOF)
}

func TestReaderSurvivesTinyReads(t *testing.T) {
	got, err := readAll(t, iotest.OneByteReader(strings.NewReader("event: a\ndata: 1\n\nevent: b\ndata: 2\n\n")), sse.Options{})
	assert.ErrorIs(t, err, io.EOF)
	assert.Equal(t, []string{"a=1", "b=2"}, got)
}

func TestReaderErrorsAreSticky(t *testing.T) {
	boom := errors.New("connection reset")
	events := sse.NewReader(io.MultiReader(strings.NewReader("data: 1\n\n"), iotest.ErrReader(boom)), sse.Options{})
	_, err := events.Next()
	require.NoError(t, err)
	_, err = events.Next()
	assert.ErrorIs(t, err, boom)
	_, err = events.Next()
	assert.ErrorIs(t, err, boom, "a broken stream stays broken")
}

func TestReaderRefusesLongEvents(t *testing.T) {
	_, err := readAll(t, strings.NewReader("data: "+strings.Repeat("a", 100)+"\n\n"), sse.Options{MaxEvent: 64})
	assert.ErrorIs(t, err, sse.ErrTooLong)
	_, err = readAll(t, strings.NewReader(strings.Repeat("data: aaaaaaaa\n", 10)+"\n"), sse.Options{MaxEvent: 64})
	assert.ErrorIs(t, err, sse.ErrTooLong, "many short lines add up")
	got, err := readAll(t, strings.NewReader("data: "+strings.Repeat("a", 60)+"\n\n"), sse.Options{MaxEvent: 64})
	assert.ErrorIs(t, err, io.EOF)
	assert.Len(t, got, 1)
}
