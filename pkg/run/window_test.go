package run

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/auxilia/sandboxes/pkg/validation"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The window is what splitting the whole file into lines gave, read a byte
// at a time or whole.
func TestWindowAsWholeFileLines(t *testing.T) {
	files := []string{"", "a", "a\n", "a\nb", "a\nb\n", "\n\n\n", "one\ntwo\nthree\n", "é\n€\n𝄞"}
	for _, file := range files {
		lines := strings.SplitAfter(file, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		for offset := 0; offset <= len(lines)+1; offset++ {
			for limit := 1; limit <= len(lines)+1; limit++ {
				want := Text{Offset: offset, TotalLines: len(lines)}
				if offset < len(lines) {
					window := lines[offset:min(len(lines), offset+limit)]
					want.Content, want.Lines = strings.Join(window, ""), len(window)
				}
				for _, r := range []io.Reader{strings.NewReader(file), iotest.OneByteReader(strings.NewReader(file))} {
					got, err := readWindow(context.Background(), r, offset, limit)
					require.NoError(t, err)
					assert.Equal(t, want, got, "%q from %d, %d lines", file, offset, limit)
				}
			}
		}
	}
}

func TestWindowCutsLongLines(t *testing.T) {
	long := strings.Repeat("€", MaxLineBytes) // 3 bytes each: the cut falls inside one
	file := "short\n" + long + "\n" + long + "\nlast\n"
	got, err := readWindow(context.Background(), strings.NewReader(file), 0, 10)
	require.NoError(t, err)
	cut := strings.Repeat("€", MaxLineBytes/3) + "\n"
	assert.Equal(t, "short\n"+cut+cut+"last\n", got.Content, "each long line is cut on a whole character")
	assert.Equal(t, 4, got.Lines)
	assert.Equal(t, 4, got.TotalLines)
	assert.True(t, got.Truncated)

	exact := strings.Repeat("a", MaxLineBytes) + "\n"
	got, err = readWindow(context.Background(), strings.NewReader(exact+exact), 0, 10)
	require.NoError(t, err)
	assert.Equal(t, exact+exact, got.Content)
	assert.False(t, got.Truncated, "a line of exactly the most is whole")
}

func TestWindowStaysWithinItsBytes(t *testing.T) {
	line := strings.Repeat("x", 10<<10) + "\n"
	file := strings.Repeat(line, 300)
	got, err := readWindow(context.Background(), strings.NewReader(file), 5, 1000)
	require.NoError(t, err)
	fit := MaxReadBytes / len(line)
	assert.Equal(t, fit, got.Lines, "the window ends before the line that would pass the most")
	assert.Equal(t, strings.Repeat(line, fit), got.Content)
	assert.Equal(t, 300, got.TotalLines, "the rest is counted")
	assert.True(t, got.Truncated)

	next, err := readWindow(context.Background(), strings.NewReader(file), 5+got.Lines, 1000)
	require.NoError(t, err)
	assert.Equal(t, fit, next.Lines, "the next window goes on from there")
}

func TestWindowRefusesBinary(t *testing.T) {
	for _, file := range []string{"a\nb\x00\n", strings.Repeat("text\n", 100000) + "\x00", "ok\n\xff\n", "ok\n\xe2\x82"} {
		_, err := readWindow(context.Background(), strings.NewReader(file), 0, 1)
		assert.ErrorIs(t, err, errBinary, "%.20q…", file)
	}
}

func TestWindowStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := readWindow(ctx, strings.NewReader(strings.Repeat("line\n", 10)), 0, 1)
	assert.True(t, errors.Is(err, context.Canceled))
}

// The check of text in pieces agrees with validation.Text wherever the pieces are cut.
func TestTextCheckInPieces(t *testing.T) {
	for _, s := range []string{"plain", "é€𝄞", "a\xffb", "\xe2\x82", "\xe2\x82\xac", "€\x00", "\xf0\x9d\x84", "\xed\xa0\x80", "x\xc3"} {
		for i := 0; i <= len(s); i++ {
			for j := i; j <= len(s); j++ {
				var check textCheck
				check.write([]byte(s[:i]))
				check.write([]byte(s[i:j]))
				check.write([]byte(s[j:]))
				assert.Equal(t, validation.Text(s), check.finished(), "%q cut at %d and %d", s, i, j)
			}
		}
	}
}
