package provider

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withTerminal is a provider that opens terminals whose connection fails
// with the credential in its words.
type withTerminal struct{ Client }

func (withTerminal) OpenTerminal(context.Context, Instance, TermSize) (PTY, error) {
	return failingPTY{}, nil
}

type failingPTY struct{}

func (failingPTY) Read([]byte) (int, error) { return 0, io.EOF }
func (failingPTY) Write([]byte) (int, error) {
	return 0, errors.New("websocket: token osk-very-secret-123 rejected")
}
func (failingPTY) Resize(context.Context, TermSize) error { return nil }
func (failingPTY) ExitCode() int                          { return 3 }
func (failingPTY) Close() error                           { return nil }

func TestInstrumentedClientOpensTerminalsOnlyWhereItsProviderDoes(t *testing.T) {
	plain := Instrument(echoing{}, "x", auxilia.NoMetrics{}, "s")
	_, ok := plain.(TerminalOpener)
	assert.False(t, ok, "a client without terminals does not seem to have them once wrapped")
	assert.Equal(t, "x", ProviderOf(plain))

	wrapped := Instrument(withTerminal{}, "y", auxilia.NoMetrics{}, "osk-very-secret-123")
	opener, ok := wrapped.(TerminalOpener)
	require.True(t, ok, "a wrapped client still opens terminals")
	assert.Equal(t, "y", ProviderOf(wrapped))

	pty, err := opener.OpenTerminal(context.Background(), Instance{}, DefaultTermSize)
	require.NoError(t, err)
	_, err = pty.Write([]byte("ls\r"))
	assert.NotContains(t, err.Error(), "osk-very-secret-123", "a terminal's errors never carry the secret")
	_, err = pty.Read(make([]byte, 8))
	assert.Equal(t, io.EOF, err, "io.EOF passes through as it is")
	assert.Equal(t, 3, pty.ExitCode())
}
