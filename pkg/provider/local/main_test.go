package local

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/proctest"
	"github.com/auxilia/sandboxes/pkg/gvisor/gvisortest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/require"
)

// marker is in the command line of every long-lived process the tests
// start, so that leftovers can be found in /proc.
const marker = "876543"

func TestMain(m *testing.M) { proctest.Main(tests{m}, marker) }

// tests run the package's tests, then remove the Python template they shared.
type tests struct{ m *testing.M }

func (t tests) Run() int {
	defer func() {
		if sharedVenvFolder != "" {
			_ = os.RemoveAll(sharedVenvFolder)
		}
	}()
	return t.m.Run()
}

// leftovers are the processes the tests left running.
func leftovers() []string { return proctest.Leftovers(marker) }

// testClient is a local client on a fresh data folder.
type testClient struct {
	*client
	dataDir string
}

// newClient opens a client on a fresh data folder. Its instances start
// from the Python template every such client shares: making one per data
// folder would cost each test seconds. newOwnClient makes its own.
func newClient(t *testing.T, configure ...func(*Config)) testClient {
	t.Helper()
	return newIsolatedClient(t, isolationBubblewrap, configure...)
}

// newIsolatedClient is newClient for sandboxes of the isolation: one
// needing gVisor fails where it cannot run in CI, and is skipped, saying
// why, elsewhere.
func newIsolatedClient(t testing.TB, isolation string, configure ...func(*Config)) testClient {
	t.Helper()
	kind := Kind{}
	if isolation == isolationGVisor {
		kind.Isolation.GVisor = gvisortest.Require(t)
	}
	venv, err := sharedVenv()
	require.NoError(t, err, "the shared Python template")
	isolate := func(cfg *Config) { cfg.Isolation = isolation }
	c := newOwnClient(t, kind, append([]func(*Config){isolate}, configure...)...)
	templates.Store(c.instances, &venvTemplate{dir: venv, ok: true})
	return c
}

// isolations are the isolations every suite runs on.
var isolations = []string{isolationBubblewrap, isolationGVisor}

// eachIsolation runs test once per isolation, as a subtest named after it.
func eachIsolation(t *testing.T, test func(t *testing.T, isolation string)) {
	for _, isolation := range isolations {
		t.Run(isolation, func(t *testing.T) { test(t, isolation) })
	}
}

// newOwnClient opens a client of kind (its data folder set here) that
// makes its own Python template when it first needs it.
func newOwnClient(t testing.TB, kind Kind, configure ...func(*Config)) testClient {
	t.Helper()
	cfg := DefaultConfig()
	for _, f := range configure {
		f(cfg)
	}
	kind.DataDir = t.TempDir()
	c, err := kind.Open(provider.Settings{Config: cfg})
	require.NoError(t, err)
	return testClient{client: c.(*client), dataDir: kind.DataDir}
}

// sharedVenvFolder is the data folder of the shared Python template.
var sharedVenvFolder string

var sharedVenv = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "local-venv-")
	if err != nil {
		return "", err
	}
	sharedVenvFolder = dir
	c, err := Kind{DataDir: dir}.Open(provider.Settings{Config: DefaultConfig()})
	if err != nil {
		return "", fmt.Errorf("open: %w", err)
	}
	return c.(*client).venv(context.Background())
})
