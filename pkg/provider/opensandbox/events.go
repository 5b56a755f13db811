package opensandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/auxilia/sandboxes/pkg/client/sse"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// The event types of execd's command stream that the client acts on.
const (
	EventTypeInit     = "init"
	EventTypeStdout   = "stdout"
	EventTypeStderr   = "stderr"
	EventTypeComplete = "execution_complete"
	EventTypeError    = "error"
	EventTypePing     = "ping"
)

// MaxEventSize bounds one event of the stream: execd sends a whole output
// line as one event, so this is also the longest output line a command may print.
const MaxEventSize = 16 << 20

// ErrMalformedEvent: the stream held something that is not an event.
var ErrMalformedEvent = errors.New("malformed event")

// Event is one event of execd's command stream.
type Event struct {
	Type string `json:"type"`
	// Text is a line of output without its line break ("\n" for a blank
	// line), or the session id of an init event.
	Text string `json:"text,omitempty"`
	// ExecutionTime is how long the command ran, in milliseconds.
	ExecutionTime int64 `json:"execution_time,omitempty"`
	// Timestamp is when execd sent the event, in Unix milliseconds.
	Timestamp int64       `json:"timestamp,omitempty"`
	Error     *EventError `json:"error,omitempty"`
}

// EventError is how a command failed: for a command that ran, Value is its
// exit code ("-1" when a signal ended it, and Traceback names the signal).
type EventError struct {
	Name      string   `json:"ename"`
	Value     string   `json:"evalue"`
	Traceback []string `json:"traceback"`
}

// EventReader reads execd's event stream: JSON objects each followed by a
// blank line, with no "data:" prefix. It also reads the same events written
// as standard server-sent events ("data: {…}"), which proxies may produce.
type EventReader struct {
	r   *sse.Reader
	err error // sticky: a malformed event leaves the stream broken
}

// NewEventReader returns a reader of the events in r.
func NewEventReader(r io.Reader) *EventReader {
	// A whole event on one line, as execd writes them, is handed over at
	// once rather than when the blank line behind it comes.
	return &EventReader{r: sse.NewReader(r, sse.Options{MaxEvent: MaxEventSize, Bare: true, Whole: json.Valid})}
}

// Next returns the next event. It returns io.EOF when the stream ends
// between events, io.ErrUnexpectedEOF when it ends inside one, and an error
// wrapping ErrMalformedEvent when the stream holds something else.
// Once it returns an error it returns it again.
func (er *EventReader) Next() (Event, error) {
	if er.err != nil {
		return Event{}, er.err
	}
	frame, err := er.r.Next()
	if errors.Is(err, sse.ErrTooLong) {
		return Event{}, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	if err != nil {
		return Event{}, err
	}
	ev, err := parseEvent(frame.Data)
	er.err = err
	return ev, err
}

func parseEvent(data []byte) (Event, error) {
	var ev Event
	if err := json.Unmarshal(data, &ev); err != nil {
		return Event{}, fmt.Errorf("%w: %s (%q)", ErrMalformedEvent, err, provider.Clip(string(data), 120))
	}
	if ev.Type == "" {
		return Event{}, fmt.Errorf("%w: no type (%q)", ErrMalformedEvent, provider.Clip(string(data), 120))
	}
	return ev, nil
}
