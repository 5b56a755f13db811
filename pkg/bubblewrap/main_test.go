package bubblewrap

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// marker is in the command line of every long-lived process the tests
// start, so that leftovers can be found in /proc.
const marker = "987654"

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

// leftovers are processes this test binary started that still run:
// children of its own, or processes with the marker in their command line.
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
		// stat: pid (comm) state ppid …; comm may hold spaces, so split after ")".
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		line := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if (len(fields) > 1 && fields[1] == self) || strings.Contains(line, marker) {
			found = append(found, filepath.Base(dir)+": "+line)
		}
	}
	return found
}

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
