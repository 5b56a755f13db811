package daytona_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/require"
)

// quickWaits keep tests fast: Daytona's transitions take a few looks here, not seconds.
var quickWaits = daytona.Waits{
	PollFirst: 5 * time.Millisecond,
	PollMax:   40 * time.Millisecond,
	Settle:    10 * time.Second,
	Retry:     5 * time.Second,
	Request:   30 * time.Second,
}

// openClient opens a client of fake with key, as the run service would.
func openClient(t *testing.T, fake *daytonatest.Server, key string, configure ...func(*daytona.Config)) *daytona.Client {
	t.Helper()
	return openClientWaits(t, fake, key, quickWaits, configure...)
}

func openClientWaits(t *testing.T, fake *daytonatest.Server, key string, waits daytona.Waits, configure ...func(*daytona.Config)) *daytona.Client {
	t.Helper()
	cfg := daytona.DefaultConfig()
	for _, f := range configure {
		f(cfg)
	}
	c, err := daytona.Kind{Waits: waits}.Open(provider.Settings{URL: fake.URL(), Secret: key, Config: cfg})
	require.NoError(t, err)
	client := c.(*daytona.Client)
	t.Cleanup(client.CloseIdleConnections)
	return client
}

// started makes a fake and a client, and creates one instance.
func started(t *testing.T, opts daytonatest.Options) (*daytonatest.Server, *daytona.Client, provider.Instance) {
	t.Helper()
	fake := daytonatest.Start(t, opts)
	client := openClient(t, fake, daytonatest.DefaultKey)
	inst, err := client.Create(context.Background(), provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.NoError(t, err)
	return fake, client, inst
}

// run executes cmd and fails the test on an error.
func run(t *testing.T, c provider.Client, inst provider.Instance, cmd string) provider.ExecResult {
	t.Helper()
	res, err := c.Execute(context.Background(), inst, provider.ExecRequest{Command: cmd, Timeout: 30 * time.Second})
	require.NoError(t, err, "execute %q", cmd)
	return res
}

// sentScript is the script a command sent to the daemon carries: the
// client sends it base64-encoded into sh -c.
func sentScript(t *testing.T, command string) string {
	t.Helper()
	_, rest, ok := strings.Cut(command, "echo '")
	require.True(t, ok, "an encoded command: %q", command)
	encoded, _, _ := strings.Cut(rest, "'")
	script, err := base64.StdEncoding.DecodeString(encoded)
	require.NoError(t, err)
	return string(script)
}
