package cloudrun

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/auxilia/sandboxes/pkg/gateway/gatewaytest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The gateway's own terminal route, through the real binary's jail.
func TestTerminalConformance(t *testing.T) {
	g := gatewaytest.Start(t, gatewaytest.NewGCS(t))
	c := open(t, g.URL, gatewaytest.Secret)
	inst, err := c.Create(context.Background(), provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-term"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), inst) })
	providertest.RunTerminal(t, c, inst)
}

// Refusals, and a terminal whose sandbox is deleted under it.
func TestTerminalRefusalsAndEnd(t *testing.T) {
	g := gatewaytest.Start(t, gatewaytest.NewGCS(t))
	ctx := context.Background()
	c := open(t, g.URL, gatewaytest.Secret)
	opener := c.(provider.TerminalOpener)

	_, err := opener.OpenTerminal(ctx, provider.Instance{ID: "sbx-nosuch", WorkDir: workDir}, provider.DefaultTermSize)
	require.ErrorIs(t, err, provider.ErrGone)

	inst, err := c.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-term"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(ctx, inst) })
	wrong := open(t, g.URL, "not-the-secret").(provider.TerminalOpener)
	_, err = wrong.OpenTerminal(ctx, inst, provider.DefaultTermSize)
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.NotContains(t, err.Error(), "not-the-secret")

	_, err = opener.OpenTerminal(ctx, inst, provider.TermSize{Cols: 5000, Rows: 24})
	require.ErrorIs(t, err, provider.ErrInvalidConfig)

	// A plain request (no upgrade) is told to upgrade; no shell starts.
	req, _ := http.NewRequest(http.MethodGet, g.URL+"/sandboxes/"+inst.ID+"/terminal", nil)
	req.Header.Set("Authorization", "Bearer "+gatewaytest.Secret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	assert.Equal(t, http.StatusUpgradeRequired, resp.StatusCode)

	pty, err := opener.OpenTerminal(ctx, inst, provider.DefaultTermSize)
	require.NoError(t, err)
	defer pty.Close()
	require.NoError(t, c.Destroy(ctx, inst))
	_, err = io.Copy(io.Discard, pty)
	require.ErrorIs(t, err, provider.ErrFailed, "the gateway says why the shell ended")
	assert.Contains(t, err.Error(), "the sandbox was deleted")
	assert.Equal(t, -1, pty.ExitCode())
}
