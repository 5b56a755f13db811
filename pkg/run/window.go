package run

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"unicode/utf8"
)

// readChunk is how much of a file read_file holds at a time, besides the
// window it answers with.
const readChunk = 64 << 10

// lookEvery is how many pieces of a file pass between looks at the context.
const lookEvery = 1024

// errBinary is readWindow's answer for a file that is not text.
var errBinary = errors.New("not a text file")

// readWindow reads the lines offset to offset+limit of a text file from r
// as it arrives and keeps only those: each cut at MaxLineBytes, together
// within MaxReadBytes. It counts the other lines as they pass, and fails
// with errBinary as soon as the file shows it is not text.
func readWindow(ctx context.Context, r io.Reader, offset, limit int) (Text, error) {
	in := bufio.NewReaderSize(r, readChunk)
	var check textCheck
	w := window{Text: Text{Offset: offset}, end: offset + limit}
	for pieces := 0; !w.done(); pieces++ {
		if pieces%lookEvery == 0 && ctx.Err() != nil {
			return Text{}, ctx.Err()
		}
		piece, err := in.ReadSlice('\n')
		if !check.write(piece) {
			return Text{}, errBinary
		}
		w.add(piece)
		switch {
		case errors.Is(err, io.EOF):
			w.endLine(false)
			return w.finish(&check)
		case err != nil && !errors.Is(err, bufio.ErrBufferFull):
			return Text{}, err
		}
	}
	rest, err := countLines(ctx, in, &check)
	if err != nil {
		return Text{}, err
	}
	w.TotalLines += rest
	return w.finish(&check)
}

// countLines counts the lines left in r, an unfinished last one included,
// checking that they are text.
func countLines(ctx context.Context, r io.Reader, check *textCheck) (int, error) {
	buf := make([]byte, readChunk)
	lines, last := 0, byte('\n')
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, err := r.Read(buf)
		if !check.write(buf[:n]) {
			return 0, errBinary
		}
		if n > 0 {
			lines += bytes.Count(buf[:n], []byte{'\n'})
			last = buf[n-1]
		}
		switch {
		case errors.Is(err, io.EOF) && last != '\n':
			return lines + 1, nil
		case errors.Is(err, io.EOF):
			return lines, nil
		case err != nil:
			return 0, err
		}
	}
}

// window gathers the lines of a read_file window as a file's pieces pass.
type window struct {
	Text
	end     int // the line after the window
	content strings.Builder
	line    []byte // what is kept of the current line, while it is in the window
	begun   bool   // the current line has begun
	cut     bool   // the current line is longer than MaxLineBytes
	full    bool   // the window ended before its end, at MaxReadBytes
}

// done reports whether the window has all its lines.
func (w *window) done() bool { return w.full || w.TotalLines >= w.end }

func (w *window) inWindow() bool { return w.TotalLines >= w.Offset && !w.done() }

// add takes the next piece of the file: part of a line, or its end with its newline.
func (w *window) add(piece []byte) {
	if len(piece) == 0 {
		return
	}
	w.begun = true
	newline := piece[len(piece)-1] == '\n'
	if w.inWindow() {
		text := piece
		if newline {
			text = piece[:len(piece)-1]
		}
		if room := MaxLineBytes - len(w.line); len(text) > room {
			w.line, w.cut = append(w.line, text[:room]...), true
		} else {
			w.line = append(w.line, piece...)
		}
	}
	if newline {
		w.endLine(true)
	}
}

// endLine counts the current line, and keeps it when it is in the window
// and fits. newline says whether it ended with one.
func (w *window) endLine(newline bool) {
	if !w.begun {
		return
	}
	if w.inWindow() {
		text := string(w.line)
		if w.cut {
			text = cutText(text, MaxLineBytes)
			if newline {
				text += "\n"
			}
		}
		if w.content.Len()+len(text) > MaxReadBytes {
			w.full = true
		} else {
			w.content.WriteString(text)
			w.Lines++
		}
		w.Truncated = w.Truncated || w.cut || w.full
	}
	w.TotalLines++
	w.line, w.begun, w.cut = w.line[:0], false, false
}

// finish returns the window, once the whole file has been seen to be text.
func (w *window) finish(check *textCheck) (Text, error) {
	if !check.finished() {
		return Text{}, errBinary
	}
	w.Content = w.content.String()
	return w.Text, nil
}

// textCheck tells whether a stream written to it in pieces is text, as
// validation.Text has it: UTF-8 without NUL. A character may be split
// between pieces.
type textCheck struct {
	pending [utf8.UTFMax]byte // the start of a character the last piece split
	n       int               // how much of pending is used
	binary  bool
}

// write checks the next piece; it reports whether the stream is still text.
func (t *textCheck) write(p []byte) bool {
	if t.binary || len(p) == 0 {
		return !t.binary
	}
	if bytes.IndexByte(p, 0) >= 0 {
		t.binary = true
		return false
	}
	if t.n > 0 {
		k := copy(t.pending[t.n:], p)
		joined := t.pending[:t.n+k]
		r, size := utf8.DecodeRune(joined)
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(joined) && k == len(p) {
				t.n += k // still unfinished: wait for more
				return true
			}
			t.binary = true
			return false
		}
		p, t.n = p[size-t.n:], 0
	}
	end := len(p)
	for i := len(p) - 1; i >= 0 && i > len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				end = i // a character the next piece finishes
			}
			break
		}
	}
	if !utf8.Valid(p[:end]) {
		t.binary = true
		return false
	}
	t.n = copy(t.pending[:], p[end:])
	return true
}

// finished reports whether the whole stream was text, no character left unfinished.
func (t *textCheck) finished() bool { return !t.binary && t.n == 0 }

// cutText returns at most n bytes of s, ending on a whole character.
func cutText(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	for i := len(s) - 1; i >= 0 && i > len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				s = s[:i]
			}
			break
		}
	}
	return s
}
