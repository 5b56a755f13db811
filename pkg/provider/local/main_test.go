package local

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/proctest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/require"
)

// marker is in the command line of every long-lived process the tests
// start, so that leftovers can be found in /proc.
const marker = "876543"

func TestMain(m *testing.M) { proctest.Main(m, marker) }

// leftovers are the processes the tests left running.
func leftovers() []string { return proctest.Leftovers(marker) }

// testClient is a local client on a fresh data folder.
type testClient struct {
	*client
	dataDir string
}

func newClient(t *testing.T, configure ...func(*Config)) testClient {
	t.Helper()
	cfg := DefaultConfig()
	for _, f := range configure {
		f(cfg)
	}
	dataDir := t.TempDir()
	c, err := Kind{DataDir: dataDir}.Open(provider.Settings{Config: cfg})
	require.NoError(t, err)
	return testClient{client: c.(*client), dataDir: dataDir}
}
