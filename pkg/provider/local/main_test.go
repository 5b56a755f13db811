package local

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// marker is in the command line of every long-lived process the tests
// start, so that leftovers can be found in /proc.
const marker = "876543"

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines leaked:", err)
			code = 1
		}
		if left := leftovers(); len(left) > 0 {
			fmt.Fprintln(os.Stderr, "processes left running:", left)
			code = 1
		}
	}
	os.Exit(code)
}

// leftovers are processes the tests started that still run: children of
// this process, or processes with the marker in their command line.
func leftovers() []string {
	var found []string
	self := strconv.Itoa(os.Getpid())
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil || filepath.Base(dir) == self {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(dir, "stat"))
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		line := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if (len(fields) > 1 && fields[1] == self) || strings.Contains(line, marker) {
			found = append(found, filepath.Base(dir)+": "+line)
		}
	}
	return found
}

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
