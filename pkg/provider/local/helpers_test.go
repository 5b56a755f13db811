package local

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/jailfs"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/require"
)

func (c testClient) create(t *testing.T) provider.Instance {
	t.Helper()
	inst, err := c.Create(context.Background(), provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), inst) })
	return inst
}

// user is who inst's commands run as.
func (c testClient) user(t *testing.T, inst provider.Instance) jailfs.User {
	t.Helper()
	u, err := c.userOf(inst.ID)
	require.NoError(t, err)
	return u
}

func (c testClient) exec(t *testing.T, inst provider.Instance, command string) provider.ExecResult {
	t.Helper()
	return c.execFor(t, inst, command, time.Minute)
}

func (c testClient) execFor(t *testing.T, inst provider.Instance, command string, timeout time.Duration) provider.ExecResult {
	t.Helper()
	res, err := c.Execute(context.Background(), inst, provider.ExecRequest{Command: command, Timeout: timeout})
	require.NoError(t, err, "execute %q", command)
	return res
}
