package cloudrun

import (
	"fmt"
	"os"
	"testing"

	"github.com/auxilia/sandboxes/pkg/gateway/gatewaytest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	gatewaytest.RemoveBinary()
	if code == 0 {
		// OpenCensus, which the Cloud Storage emulator brings, starts one when loaded.
		if err := goleak.Find(goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start")); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// open returns a client of the gateway with the given config changes.
func open(t *testing.T, url, secret string, edit ...func(*Config)) provider.Client {
	t.Helper()
	cfg := DefaultConfig()
	for _, e := range edit {
		e(cfg)
	}
	require.Empty(t, cfg.Validate(provider.Policy{}))
	c, err := Kind{}.Open(provider.Settings{URL: url, Secret: secret, Config: cfg})
	require.NoError(t, err)
	t.Cleanup(c.(interface{ CloseIdleConnections() }).CloseIdleConnections)
	return c
}

func withBucket(c *Config) { c.GCSBucket = gatewaytest.Bucket }
