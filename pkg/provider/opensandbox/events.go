package opensandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

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
	r       *bufio.Reader
	pending []byte // data lines of an event not yet complete
	err     error  // sticky: once the stream fails or ends, it stays so
}

// NewEventReader returns a reader of the events in r.
func NewEventReader(r io.Reader) *EventReader {
	return &EventReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event. It returns io.EOF when the stream ends
// between events, io.ErrUnexpectedEOF when it ends inside one, and an error
// wrapping ErrMalformedEvent when the stream holds something else.
func (er *EventReader) Next() (Event, error) {
	if er.err != nil {
		return Event{}, er.err
	}
	ev, err := er.next()
	if err != nil {
		er.err = err
	}
	return ev, err
}

func (er *EventReader) next() (Event, error) {
	for {
		line, err := er.readLine()
		if err == io.EOF {
			if len(er.pending) == 0 {
				return Event{}, io.EOF
			}
			// The stream ended without the blank line: keep the event if it is whole.
			if ev, perr := parseEvent(er.pending); perr == nil {
				er.pending = nil
				return ev, nil
			}
			return Event{}, io.ErrUnexpectedEOF
		}
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if len(er.pending) == 0 {
				continue
			}
			data := er.pending
			er.pending = nil
			return parseEvent(data)
		}
		data, ok := eventData(line)
		if !ok {
			continue
		}
		if len(er.pending) == 0 && len(data) > 0 && data[0] == '{' {
			// A whole event on one line, as execd writes them: hand it over at once
			// rather than waiting for the blank line behind it.
			if ev, err := parseEvent(data); err == nil {
				return ev, nil
			}
		}
		if len(er.pending)+len(data)+1 > MaxEventSize {
			return Event{}, fmt.Errorf("%w: an event is longer than %d bytes", ErrMalformedEvent, MaxEventSize)
		}
		if len(er.pending) > 0 {
			er.pending = append(er.pending, '\n')
		}
		er.pending = append(er.pending, data...)
	}
}

// eventData returns the event payload a line carries, or false for lines
// that carry none (SSE comments and fields other than data).
func eventData(line []byte) ([]byte, bool) {
	switch {
	case line[0] == '{':
		return line, true
	case line[0] == ':':
		return nil, false
	}
	field, value, found := bytes.Cut(line, []byte(":"))
	if !found {
		return line, true // not an SSE field: let parsing report it
	}
	switch string(field) {
	case "data":
		return bytes.TrimPrefix(value, []byte(" ")), true
	case "event", "id", "retry":
		return nil, false
	default:
		return line, true
	}
}

// readLine returns the next line without its line break, refusing lines
// longer than MaxEventSize.
func (er *EventReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := er.r.ReadSlice('\n')
		if len(line)+len(chunk) > MaxEventSize+2 {
			return nil, fmt.Errorf("%w: an event is longer than %d bytes", ErrMalformedEvent, MaxEventSize)
		}
		line = append(line, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) > 0:
			return trimLineBreak(line), nil
		case err != nil:
			return nil, err
		}
		return trimLineBreak(line), nil
	}
}

func trimLineBreak(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
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
