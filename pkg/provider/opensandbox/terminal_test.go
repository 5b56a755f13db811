package opensandbox_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTerminalThroughServerProxy(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	providertest.RunTerminal(t, client, inst)
	assertNoTerminalsLeft(t, fake, inst)
	assert.False(t, fake.ExecdSawAPIKey(), "the API key never reaches execd")
}

func TestTerminalDirectToExecd(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{ExecdAccessToken: "execd-token",
		EndpointHeaders: map[string]string{"X-EXECD-ACCESS-TOKEN": "execd-token"}}, direct)
	inst := create(t, client)
	providertest.RunTerminal(t, client, inst)
	assertNoTerminalsLeft(t, fake, inst)
	assert.False(t, fake.ExecdSawAPIKey(), "the API key never reaches execd")
}

// assertNoTerminalsLeft checks that every closed terminal deleted its
// session: execd keeps a session whose WebSocket merely closed.
func assertNoTerminalsLeft(t *testing.T, fake *opensandboxtest.Server, inst provider.Instance) {
	t.Helper()
	sessions, running := fake.Terminals(inst.ID)
	assert.Zero(t, sessions, "sessions left in execd")
	assert.Zero(t, running, "shells left running")
}

func TestTerminalIsDeclared(t *testing.T) {
	assert.True(t, opensandbox.Kind{}.Describe().Capabilities.Has(provider.Terminal))
}

func TestTerminalOfAGoneInstance(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.Expire(inst.ID)
	_, err := client.(provider.TerminalOpener).OpenTerminal(context.Background(), inst, provider.DefaultTermSize)
	require.ErrorIs(t, err, provider.ErrGone)
}

// A refused WebSocket reaches the client as execd's HTTP answer when it
// calls execd, and as the server proxy's close when it goes through the
// proxy; either way the session made for it is deleted.
func TestTerminalRefusedAttach(t *testing.T) {
	for _, tt := range []struct {
		name  string
		via   func(*opensandbox.Config)
		kind  error
		words string
	}{
		{"direct", direct, provider.ErrFailed, "ALREADY_CONNECTED"},
		{"through the server proxy", proxied, provider.ErrUnreachable, "the server proxy could not open execd's terminal (closed with 1008)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake, client := setup(t, opensandboxtest.Options{}, tt.via)
			inst := create(t, client)
			fake.Inject(opensandboxtest.OpPTYAttach, opensandboxtest.Fault{Status: 409, Code: "ALREADY_CONNECTED",
				Message: "another client is already connected to pty session"})
			_, err := client.(provider.TerminalOpener).OpenTerminal(context.Background(), inst, provider.DefaultTermSize)
			require.ErrorIs(t, err, tt.kind)
			assert.Contains(t, err.Error(), tt.words)
			assertNoTerminalsLeft(t, fake, inst)
		})
	}
}

func TestTerminalRefusesNoSize(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	_, err := client.(provider.TerminalOpener).OpenTerminal(context.Background(), inst, provider.TermSize{Cols: 80})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "80x0")
	assert.Zero(t, fake.Calls(opensandboxtest.OpPTYCreate), "nothing asked of execd")
}

// execd answers a shell that cannot start with an error frame, after the
// upgrade (components/execd/pkg/web/controller/pty_ws.go, START_FAILED).
func TestTerminalWhoseShellCannotStart(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	sb, ok := fake.Sandbox(inst.ID)
	require.True(t, ok)
	fake.Inject(opensandboxtest.OpPTYAttach, opensandboxtest.Fault{Delay: time.Second})
	go func() { // the session's folder goes between the session's making and its shell's start
		for wait := 0; wait < 500 && fake.Calls(opensandboxtest.OpPTYAttach) == 0; wait++ { // attach is held a second by the fault
			time.Sleep(10 * time.Millisecond)
		}
		_ = os.RemoveAll(filepath.Join(sb.Root, inst.WorkDir))
	}()
	_, err := client.(provider.TerminalOpener).OpenTerminal(context.Background(), inst, provider.DefaultTermSize)
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "execd: START_FAILED: pty.StartWithSize: ")
	assertNoTerminalsLeft(t, fake, inst)
}

func TestTerminalOfAnExecdWithoutOne(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{NoPTY: true})
	inst := create(t, client)
	_, err := client.(provider.TerminalOpener).OpenTerminal(context.Background(), inst, provider.DefaultTermSize)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	assert.Contains(t, err.Error(), "this sandbox's execd has no terminal")
}

// A terminal whose sandbox goes away ends: Read returns, and Close is fine.
func TestTerminalOfAnInstanceThatGoes(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	term, err := client.(provider.TerminalOpener).OpenTerminal(context.Background(), inst, provider.DefaultTermSize)
	require.NoError(t, err)
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, term)
		ended <- err
	}()
	fake.Expire(inst.ID)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("Read did not return after the sandbox went")
	}
	assert.Equal(t, -1, term.ExitCode(), "the shell was killed")
	require.NoError(t, term.Close())
}
