package opensandbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// testKind keeps waits short enough for tests and long enough for a jail.
var testKind = opensandbox.Kind{ReadyTimeout: 20 * time.Second, RequestTimeout: 10 * time.Second}

const testKey = "osb-test-key"

// setup starts a fake controller (requiring testKey) and opens a client of it.
func setup(t *testing.T, opts opensandboxtest.Options, configure ...func(*opensandbox.Config)) (*opensandboxtest.Server, provider.Client) {
	t.Helper()
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	fake := opensandboxtest.New(t, opts)
	return fake, openClient(t, testKind, fake.URL, testKey, configure...)
}

func openClient(t *testing.T, k opensandbox.Kind, url, key string, configure ...func(*opensandbox.Config)) provider.Client {
	t.Helper()
	cfg := opensandbox.DefaultConfig()
	for _, c := range configure {
		c(cfg)
	}
	client, err := k.Open(provider.Settings{URL: url, Secret: key, Config: cfg})
	require.NoError(t, err)
	return client
}

func direct(c *opensandbox.Config)  { c.UseServerProxy = false }
func proxied(c *opensandbox.Config) { c.UseServerProxy = true }

// create makes an instance that is destroyed when the test ends.
func create(t *testing.T, client provider.Client) provider.Instance {
	t.Helper()
	inst, err := client.Create(context.Background(), provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
	return inst
}

func run(t *testing.T, client provider.Client, inst provider.Instance, command string) provider.ExecResult {
	t.Helper()
	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: command, Timeout: 30 * time.Second})
	require.NoError(t, err)
	return res
}

// providerMessage is the provider's own words in err.
func providerMessage(t *testing.T, err error) string {
	t.Helper()
	var perr *provider.Error
	require.True(t, errors.As(err, &perr), "a provider error, not %T: %v", err, err)
	return perr.Message
}
