package gateway

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// outputSink receives a command's output as text, from both streams in arrival order.
type outputSink interface {
	output(stream, text string)
}

// truncationNotice ends a stream cut at limit bytes.
func truncationNotice(stream string, limit int) string {
	return fmt.Sprintf("[output truncated: %s exceeded %d bytes]", stream, limit)
}

// streamCapture keeps the first limit bytes of one output stream and drains
// the rest, so a chatty command neither blocks nor fills the gateway's memory.
// Text is passed on only in whole UTF-8 characters.
type streamCapture struct {
	stream string
	limit  int
	sink   outputSink

	kept      int
	truncated bool
	pending   []byte // the start of a character whose other bytes have not arrived
	last      byte
}

func newStreamCapture(stream string, limit int, sink outputSink) *streamCapture {
	return &streamCapture{stream: stream, limit: limit, sink: sink}
}

func (c *streamCapture) Write(p []byte) (int, error) {
	n := len(p)
	if c.truncated {
		return n, nil
	}
	if room := c.limit - c.kept; len(p) > room {
		p, c.truncated = p[:room], true
	}
	c.kept += len(p)
	data := append(c.pending, p...)
	end := completeUTF8(data)
	c.pending = append([]byte(nil), data[end:]...)
	if c.truncated {
		c.pending = nil // a character cut by the limit is dropped whole
	}
	c.emit(data[:end])
	return n, nil
}

// finish passes on what is held back and, if the stream was cut, the notice.
func (c *streamCapture) finish() {
	c.emit(c.pending)
	c.pending = nil
	if c.truncated {
		notice := truncationNotice(c.stream, c.limit) + "\n"
		if c.kept > 0 && c.last != '\n' {
			notice = "\n" + notice
		}
		c.sink.output(c.stream, notice)
	}
}

func (c *streamCapture) emit(b []byte) {
	if len(b) == 0 {
		return
	}
	c.last = b[len(b)-1]
	c.sink.output(c.stream, string(b))
}

// completeUTF8 returns the length of b without a trailing incomplete character.
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		c := b[i]
		switch {
		case c < utf8.RuneSelf:
			return len(b)
		case utf8.RuneStart(c):
			size := 2
			if c >= 0xF0 {
				size = 4
			} else if c >= 0xE0 {
				size = 3
			}
			if len(b)-i < size {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}

// collectedOutput gathers both streams for the plain JSON answer.
type collectedOutput struct {
	mu             sync.Mutex
	stdout, stderr strings.Builder
}

func (o *collectedOutput) output(stream, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if stream == "stderr" {
		o.stderr.WriteString(text)
	} else {
		o.stdout.WriteString(text)
	}
}
