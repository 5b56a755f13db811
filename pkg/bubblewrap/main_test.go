package bubblewrap

import (
	"bytes"
	"context"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/proctest"
	"github.com/stretchr/testify/require"
)

// marker is in the command line of every long-lived process the tests
// start, so that leftovers can be found in /proc.
const marker = "987654"

func TestMain(m *testing.M) { proctest.Main(m, marker) }

// leftovers are the processes the tests left running.
func leftovers() []string { return proctest.Leftovers(marker) }

// newJail returns a jail on a fresh folder its commands may write to.
func newJail(t *testing.T) Jail {
	t.Helper()
	j := Jail{Root: t.TempDir(), WorkDir: "/workspace"}
	uid, gid := j.User()
	require.NoError(t, os.Chown(j.Root, uid, gid))
	return j
}

// output records what a command writes, and when it first wrote.
type output struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first time.Time
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.first.IsZero() {
		o.first = time.Now()
	}
	return o.buf.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// run runs command in j and fails the test if Run fails.
func run(t *testing.T, j Jail, command string) (stdout, stderr string, res Result) {
	t.Helper()
	var out, errOut output
	res, err := j.Run(context.Background(), command, time.Minute, &out, &errOut)
	require.NoError(t, err, "run %q", command)
	return out.String(), errOut.String(), res
}

func fileOwner(info os.FileInfo) (uid, gid int) {
	st := info.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}
