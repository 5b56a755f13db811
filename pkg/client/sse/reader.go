// Package sse reads server-sent events: the execute streams of this
// server's API, of the Cloud Run gateway and of OpenSandbox's execd.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEvent bounds one event (and one line) when Options.MaxEvent is zero.
const DefaultMaxEvent = 4 << 20

// ErrCut is a stream that ended inside an event, or before the event that
// ends it (Options.Last): its sender stopped or the connection was cut.
// It wraps io.ErrUnexpectedEOF.
var ErrCut = fmt.Errorf("the event stream was cut: %w", io.ErrUnexpectedEOF)

// ErrTooLong is an event or a line longer than Options.MaxEvent.
var ErrTooLong = errors.New("an event is too long")

// Event is one event: its `event:` name (empty when it has none) and its
// `data:` lines joined by line breaks.
type Event struct {
	Name string
	Data []byte
}

// Options tune a Reader. The zero value reads standard server-sent events.
type Options struct {
	// MaxEvent bounds one event's data and one line, in bytes (DefaultMaxEvent when zero).
	MaxEvent int
	// Last is the name of the event that ends the stream: a stream that
	// ends before it is ErrCut rather than io.EOF.
	Last string
	// Bare takes a line that is no field of the format (neither a comment
	// nor `data:`, `event:`, `id:` or `retry:`) for a data line, as execd
	// writes its events: bare JSON objects, each followed by a blank line.
	Bare bool
	// Whole reports whether one data line is already a whole event: it is
	// then handed over at once, not when the blank line behind it comes,
	// and a stream that ends without that blank line is not cut.
	Whole func(data []byte) bool
}

// Reader reads the events of a stream, one at a time.
type Reader struct {
	r    *bufio.Reader
	opts Options

	name     string
	data     []byte
	hasData  bool
	sawLast  bool
	err      error // sticky: once the stream fails or ends, it stays so
	lastRead bool  // the line just read ended the stream without a line break
}

// NewReader returns a reader of the events in r.
func NewReader(r io.Reader, opts Options) *Reader {
	if opts.MaxEvent <= 0 {
		opts.MaxEvent = DefaultMaxEvent
	}
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), opts: opts}
}

// Next returns the next event. It returns io.EOF when the stream ends
// between events (and after Options.Last), ErrCut when it ends inside an
// event or before Options.Last, an error wrapping ErrTooLong for an event
// past the bound, and a failed read's own error.
func (sr *Reader) Next() (Event, error) {
	if sr.err != nil {
		return Event{}, sr.err
	}
	ev, err := sr.next()
	if err != nil {
		sr.err = err
		return Event{}, err
	}
	if sr.opts.Last != "" && ev.Name == sr.opts.Last {
		sr.sawLast = true
	}
	return ev, nil
}

func (sr *Reader) next() (Event, error) {
	for {
		line, err := sr.readLine()
		if err == io.EOF {
			return sr.ended()
		}
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			if !sr.hasData && sr.name == "" {
				continue
			}
			return sr.dispatch(), nil
		}
		field, value := splitField(line, sr.opts.Bare)
		switch field {
		case "data":
			if sr.opts.Whole != nil && !sr.hasData && !sr.lastRead && sr.opts.Whole(value) {
				sr.data, sr.hasData = append(sr.data[:0], value...), true
				return sr.dispatch(), nil
			}
			if len(sr.data)+len(value)+1 > sr.opts.MaxEvent {
				return Event{}, fmt.Errorf("%w: longer than %d bytes", ErrTooLong, sr.opts.MaxEvent)
			}
			if sr.hasData {
				sr.data = append(sr.data, '\n')
			}
			sr.data, sr.hasData = append(sr.data, value...), true
		case "event":
			sr.name = string(value)
		}
	}
}

// ended is the end of the stream: an event left whole, or the cut.
func (sr *Reader) ended() (Event, error) {
	if sr.hasData && sr.opts.Whole != nil && sr.opts.Whole(sr.data) {
		return sr.dispatch(), nil
	}
	if sr.hasData || sr.name != "" || (sr.opts.Last != "" && !sr.sawLast) {
		return Event{}, ErrCut
	}
	return Event{}, io.EOF
}

func (sr *Reader) dispatch() Event {
	ev := Event{Name: sr.name, Data: bytes.Clone(sr.data)}
	if ev.Data == nil {
		ev.Data = []byte{}
	}
	sr.name, sr.data, sr.hasData = "", sr.data[:0], false
	return ev
}

// splitField returns a line's field and value ("" for a comment and a
// field this reader ignores). In bare mode a line that is no field is data.
func splitField(line []byte, bare bool) (string, []byte) {
	if line[0] == ':' {
		return "", nil
	}
	field, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "data", "event":
		return string(field), value
	case "id", "retry":
		return "", nil
	}
	if bare {
		return "data", line
	}
	return "", nil
}

// lineSlack is what a line holds beyond its data: a field's name and its line break.
const lineSlack = 16

// readLine returns the next line without its line break, refusing lines
// longer than MaxEvent and a field's name.
func (sr *Reader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := sr.r.ReadSlice('\n')
		if len(line)+len(chunk) > sr.opts.MaxEvent+lineSlack {
			return nil, fmt.Errorf("%w: a line longer than %d bytes", ErrTooLong, sr.opts.MaxEvent)
		}
		line = append(line, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && len(line) > 0:
			sr.lastRead = true
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
