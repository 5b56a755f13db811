package opensandbox_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// execdStream is a command's stream exactly as execd writes it.
const execdStream = `{"type":"init","text":"3d616ad4c1664d64ac4534e93929752e","timestamp":1795956188523}

{"type":"ping","text":"pong","timestamp":1795956188524}

{"type":"stdout","text":"hello","timestamp":1795956189561}

{"type":"stdout","text":"\n","timestamp":1795956189561}

{"type":"stderr","text":"err","timestamp":1795956189561}

{"type":"error","timestamp":1795956189561,"error":{"ename":"CommandExecError","evalue":"3","traceback":["exit status 3"]}}

`

func readAll(t *testing.T, r io.Reader) ([]opensandbox.Event, error) {
	t.Helper()
	events := opensandbox.NewEventReader(r)
	var out []opensandbox.Event
	for {
		ev, err := events.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev)
		require.Less(t, len(out), 10000, "the reader must end")
	}
}

func types(events []opensandbox.Event) string {
	var ts []string
	for _, ev := range events {
		ts = append(ts, ev.Type)
	}
	return strings.Join(ts, ",")
}

func TestEventReaderReadsExecdStream(t *testing.T) {
	events, err := readAll(t, strings.NewReader(execdStream))
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, "init,ping,stdout,stdout,stderr,error", types(events))
	assert.Equal(t, "3d616ad4c1664d64ac4534e93929752e", events[0].Text)
	assert.Equal(t, "hello", events[2].Text)
	assert.Equal(t, "\n", events[3].Text, "a blank line comes as a line break")
	assert.Equal(t, int64(1795956189561), events[2].Timestamp)
	require.NotNil(t, events[5].Error)
	assert.Equal(t, "3", events[5].Error.Value)
	assert.Equal(t, []string{"exit status 3"}, events[5].Error.Traceback)
}

func TestEventReaderFormats(t *testing.T) {
	tests := []struct {
		name   string
		stream string
		want   string // event types, comma-separated
		err    error
	}{
		{"server-sent events with data prefix",
			"data: {\"type\":\"stdout\",\"text\":\"a\"}\n\ndata:{\"type\":\"execution_complete\"}\n\n", "stdout,execution_complete", io.EOF},
		{"crlf line ends", "{\"type\":\"stdout\",\"text\":\"a\"}\r\n\r\n{\"type\":\"ping\"}\r\n\r\n", "stdout,ping", io.EOF},
		{"comments and other SSE fields are skipped",
			": keep-alive\nevent: message\nid: 7\nretry: 100\ndata: {\"type\":\"ping\"}\n\n", "ping", io.EOF},
		{"an event split over data lines", "data: {\"type\":\ndata: \"stdout\"}\n\n", "stdout", io.EOF},
		{"no blank line between events", "{\"type\":\"init\"}\n{\"type\":\"ping\"}\n", "init,ping", io.EOF},
		{"a last event without its blank line", "{\"type\":\"execution_complete\"}", "execution_complete", io.EOF},
		{"extra blank lines", "\n\n\n{\"type\":\"ping\"}\n\n\n\n", "ping", io.EOF},
		{"an empty stream", "", "", io.EOF},
		{"cut inside an event", "{\"type\":\"ping\"}\n\n{\"type\":\"stdout\",\"te", "ping", io.ErrUnexpectedEOF},
		{"not JSON", "<html>Bad Gateway</html>\n\n", "", opensandbox.ErrMalformedEvent},
		{"JSON that is not an event", "[1,2,3]\n\n", "", opensandbox.ErrMalformedEvent},
		{"an event without a type", "{\"text\":\"hello\"}\n\n", "", opensandbox.ErrMalformedEvent},
		{"a good event then garbage", "{\"type\":\"ping\"}\n\nnope\n\n", "ping", opensandbox.ErrMalformedEvent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events, err := readAll(t, strings.NewReader(tt.stream))
			assert.ErrorIs(t, err, tt.err)
			assert.Equal(t, tt.want, types(events))
		})
	}
}

func TestEventReaderSurvivesTinyReads(t *testing.T) {
	events, err := readAll(t, iotest.OneByteReader(strings.NewReader(execdStream)))
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, "init,ping,stdout,stdout,stderr,error", types(events))
}

func TestEventReaderPassesReadErrorsOn(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("{\"type\":\"ping\"}\n\n"), iotest.ErrReader(boom))
	events, err := readAll(t, r)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, "ping", types(events))
	_, again := opensandbox.NewEventReader(iotest.ErrReader(boom)).Next()
	assert.ErrorIs(t, again, boom)
}

func TestEventReaderErrorsAreSticky(t *testing.T) {
	events := opensandbox.NewEventReader(strings.NewReader("garbage\n\n{\"type\":\"ping\"}\n\n"))
	_, err := events.Next()
	require.ErrorIs(t, err, opensandbox.ErrMalformedEvent)
	_, err = events.Next()
	assert.ErrorIs(t, err, opensandbox.ErrMalformedEvent, "a broken stream stays broken")
}

func TestEventReaderRefusesHugeEvents(t *testing.T) {
	huge := `{"type":"stdout","text":"` + strings.Repeat("a", opensandbox.MaxEventSize) + `"}` + "\n\n"
	_, err := readAll(t, strings.NewReader(huge))
	assert.ErrorIs(t, err, opensandbox.ErrMalformedEvent)

	big := `{"type":"stdout","text":"` + strings.Repeat("a", 1<<20) + `"}` + "\n\n"
	events, err := readAll(t, strings.NewReader(big))
	assert.ErrorIs(t, err, io.EOF)
	require.Len(t, events, 1, "a long line within the bound is one event")
	assert.Len(t, events[0].Text, 1<<20)
}

// The completion event must come out as soon as its line arrives: execd
// holds the stream open for a while after it.
func TestEventReaderDoesNotWaitForTheStreamToEnd(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	go func() {
		_, _ = pw.Write([]byte("{\"type\":\"execution_complete\",\"execution_time\":4}\n"))
		// The blank line and the end of the stream come much later, if ever.
	}()
	got := make(chan opensandbox.Event, 1)
	go func() {
		ev, _ := opensandbox.NewEventReader(pr).Next()
		got <- ev
	}()
	select {
	case ev := <-got:
		assert.Equal(t, opensandbox.EventTypeComplete, ev.Type)
		assert.Equal(t, int64(4), ev.ExecutionTime)
	case <-time.After(5 * time.Second):
		t.Fatal("the reader waited for more than the event's own line")
	}
	pw.Close()
}

func FuzzEventReader(f *testing.F) {
	f.Add([]byte(execdStream))
	f.Add([]byte("data: {\"type\":\"ping\"}\n\n"))
	f.Add([]byte("{\"type\":\"stdout\",\"te"))
	f.Add([]byte(": comment\r\n\r\ndata: {\r\ndata: \"type\":\"x\"}\r\n\r\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		events := opensandbox.NewEventReader(strings.NewReader(string(stream)))
		for i := 0; ; i++ {
			ev, err := events.Next()
			if err != nil {
				return
			}
			if ev.Type == "" {
				t.Fatalf("event %d has no type", i)
			}
			if i > len(stream) {
				t.Fatalf("more events (%d) than bytes (%d)", i, len(stream))
			}
		}
	})
}
