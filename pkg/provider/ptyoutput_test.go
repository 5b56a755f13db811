package provider

import (
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func events(evs ...PTYEvent) func() (PTYEvent, error) {
	return func() (PTYEvent, error) {
		if len(evs) == 0 {
			return PTYEvent{}, io.EOF
		}
		ev := evs[0]
		evs = evs[1:]
		return ev, nil
	}
}

// The output reads as it came, across small reads, and the end says the
// exit code; a stream that ends unsaid, or a shell killed, is -1.
func TestPTYOutputReadsEventsThenTheEnd(t *testing.T) {
	o := &PTYOutput{Next: events(PTYEvent{Output: []byte("hello ")}, PTYEvent{Output: []byte("world")},
		PTYEvent{Ended: true, Exited: true, ExitCode: 3}, PTYEvent{Output: []byte("never read")})}
	assert.Equal(t, -1, o.ExitCode(), "not ended yet")
	var got []byte
	buf := make([]byte, 4)
	for {
		n, err := o.Read(buf)
		got = append(got, buf[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, "hello world", string(got))
	assert.Equal(t, 3, o.ExitCode())
	n, err := o.Read(buf)
	assert.Zero(t, n)
	assert.ErrorIs(t, err, io.EOF, "ended stays ended")

	for _, o := range []*PTYOutput{{Next: events()}, {Next: events(PTYEvent{Ended: true})}} {
		_, err := io.ReadAll(o)
		require.NoError(t, err)
		assert.Equal(t, -1, o.ExitCode())
	}

	broken := errors.New("stream broken")
	o = &PTYOutput{Next: events()}
	o.Next = func() (PTYEvent, error) {
		o.Next = events(PTYEvent{Output: []byte("after the failure")})
		return PTYEvent{}, broken
	}
	_, err = o.Read(buf)
	assert.ErrorIs(t, err, broken)
	_, err = o.Read(buf)
	assert.ErrorIs(t, err, broken, "failed stays failed")
}
