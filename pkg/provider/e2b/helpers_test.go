package e2b_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/e2b"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
)

// openClient opens a client of fake with key, as the run service would,
// its envd reached through the fake's proxy.
func openClient(t *testing.T, fake *e2btest.Server, key string, configure ...func(*e2b.Config)) *e2b.Client {
	t.Helper()
	cfg := e2b.DefaultConfig()
	cfg.EnvdURL = fake.EnvdURL()
	for _, f := range configure {
		f(cfg)
	}
	c, err := e2b.Kind{}.Open(provider.Settings{URL: fake.URL(), Secret: key, Config: cfg})
	require.NoError(t, err)
	client := c.(*e2b.Client)
	t.Cleanup(client.CloseIdleConnections)
	return client
}

// started makes a fake and a client, and creates one instance.
func started(t *testing.T, configure ...func(*e2b.Config)) (*e2btest.Server, *e2b.Client, provider.Instance) {
	t.Helper()
	fake := e2btest.Start(t, e2btest.Options{})
	client := openClient(t, fake, e2btest.DefaultKey, configure...)
	inst, err := client.Create(context.Background(), provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
	return fake, client, inst
}

// run executes cmd and fails the test on an error.
func run(t *testing.T, c provider.Client, inst provider.Instance, cmd string) provider.ExecResult {
	t.Helper()
	res, err := c.Execute(context.Background(), inst, provider.ExecRequest{Command: cmd, Timeout: 30 * time.Second})
	require.NoError(t, err, "execute %q", cmd)
	return res
}
