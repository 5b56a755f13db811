package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/proctest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// execAll runs the commands in inst at once, and returns their outputs.
func (c testClient) execAll(t *testing.T, inst provider.Instance, commands ...string) []string {
	t.Helper()
	outs := make([]string, len(commands))
	var wg sync.WaitGroup
	for i, command := range commands {
		wg.Go(func() {
			res, err := c.Execute(context.Background(), inst, provider.ExecRequest{Command: command, Timeout: time.Minute})
			outs[i] = fmt.Sprintf("%s[%v]", res.Output, err)
		})
	}
	wg.Wait()
	return outs
}

func TestTheInstanceMemoryIsBoundedAsAWhole(t *testing.T) {
	c := newClient(t, func(cfg *Config) { cfg.Resources.MemoryMB = 1024 })
	inst := c.create(t)
	// Four processes of 400 MiB each, which fit one by one: together they do not.
	res := c.exec(t, inst, `for i in 1 2 3 4; do
		python3 -c 'import time; b = b"x" * (400 << 20); time.sleep(3); print("held")' & pids="$pids $!"
	done
	for p in $pids; do wait $p; echo "exit $?"; done`)
	// Lines of their own: bash's notice of a killed job repeats its command.
	assert.LessOrEqual(t, len(regexp.MustCompile(`(?m)^held$`).FindAllString(res.Output, -1)), 2, res.Output)
	assert.Contains(t, res.Output, "exit 137", "the kernel killed what did not fit")
}

// Under gVisor the host's kernel ends gVisor's, with every process of the
// instance, when they together pass its memory; the next command starts it
// again.
func TestAGVisorInstancePastItsMemoryStartsAgain(t *testing.T) {
	c := newIsolatedClient(t, isolationGVisor, func(cfg *Config) { cfg.Resources.MemoryMB = 512 })
	inst := c.create(t)
	res, err := c.Execute(context.Background(), inst, provider.ExecRequest{Timeout: time.Minute, Command: `for i in 1 2 3 4; do
		python3 -c 'import time; b = b"x" * (200 << 20); time.sleep(3); print("held")' &
	done; wait`})
	if err == nil {
		assert.LessOrEqual(t, strings.Count(res.Output, "held"), 2, "what did not fit was killed: %s", res.Output)
	} else {
		assert.ErrorIs(t, err, provider.ErrFailed)
		assert.Contains(t, err.Error(), "resources.memory_mb")
	}
	assert.Equal(t, "alive\n", c.exec(t, inst, "echo alive").Output, "the instance works again")
}

func TestTheInstanceCPUIsBoundedAsAWhole(t *testing.T) {
	c := newClient(t, func(cfg *Config) { cfg.Resources.CPU = 0.1 })
	inst := c.create(t)
	res := c.exec(t, inst, "cat /proc/self/cgroup")
	assert.Regexp(t, `(?m)^\d+:(cpu|cpu,cpuacct|):.*/`+inst.ID+`$`, res.Output, "its commands are in the instance's cgroup")

	// Two commands of three busy loops each: a tenth of a CPU between them.
	start := time.Now()
	used := 0.0
	for _, out := range c.execAll(t, inst, proctest.BusyLoops(3), proctest.BusyLoops(3)) {
		seconds, err := proctest.CPUSeconds(out)
		require.NoError(t, err)
		used += seconds
	}
	assert.Greater(t, used, 0.05, "the loops ran")
	assert.Less(t, used, 0.1*time.Since(start).Seconds()+0.2, "the instance's commands shared a tenth of a CPU")
}

func TestConcurrentCommandsShareTheProcessLimit(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation, func(cfg *Config) { cfg.MaxProcesses = 16 })
		inst := c.create(t)
		// Each forks until refused, then holds its children until the other
		// was refused too (or a while, if the other found no room to start):
		// on a loaded machine one could otherwise end, and free its room,
		// before the other starts forking.
		forkAndHold := `python3 -c '
import os, time  # ` + marker + `
n = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        n += 1
except OSError:
    with open("refused", "a") as f:
        f.write("x")
    deadline = time.time() + 20
    while time.time() < deadline and len(open("refused").read()) < 2:
        time.sleep(0.05)
    print("made", n)
'`
		made, reported := 0, 0
		for _, out := range c.execAll(t, inst, forkAndHold, forkAndHold) {
			// A command may find no room left even to start.
			var n int
			if _, err := fmt.Sscanf(out, "made %d", &n); err == nil {
				made += n
				reported++
			}
		}
		require.Positive(t, reported)
		// Each command that ran holds at least two more: its jail's first
		// process and python. A command that found no room never ran.
		assert.LessOrEqual(t, made, 16-2*reported, "the commands of one instance share max_processes (%d of them ran)", reported)
		assert.Empty(t, leftovers())
	})
}

// hostUsage is how much of the host's disk the data folder takes, mounted
// filesystems aside.
func hostUsage(t *testing.T, dir string) int64 {
	t.Helper()
	var root syscall.Stat_t
	require.NoError(t, syscall.Stat(dir, &root))
	var total int64
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		if st.Dev != root.Dev {
			return fs.SkipDir
		}
		total += st.Blocks * 512
		return nil
	}))
	return total
}

func TestWritesPastTheDiskFailInTheJail(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation, func(cfg *Config) { cfg.Resources.DiskMB = 64 })
		inst := c.create(t)
		res := c.exec(t, inst, "head -c 100M /dev/zero > big")
		assert.NotEqual(t, 0, res.ExitCode)
		assert.Contains(t, res.Output, "No space left on device")
		assert.LessOrEqual(t, hostUsage(t, c.dataDir), int64(64<<20), "the host gave the instance no more than disk_mb")

		err := c.WriteFile(context.Background(), inst, "more", make([]byte, 1<<20))
		assert.ErrorContains(t, err, "no space left on device", "the file tools meet the same bound")
		res = c.exec(t, inst, "rm big && echo room > small && cat small")
		assert.Equal(t, "room\n", res.Output, "removing files makes room again")
	})
}

func TestCommandsDoNotSeeTheDataFolderInTheirMounts(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		res := c.exec(t, c.create(t), "cat /proc/self/mountinfo")
		assert.Contains(t, res.Output, " /workspace ")
		assert.NotContains(t, res.Output, c.dataDir, "the workspace is the root of its own filesystem")
	})
}

func TestConcurrentCommandsAreCapped(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	// Sleeps whose command line is this test's alone, told apart from
	// those of tests running elsewhere.
	sleep := fmt.Sprintf("sleep %s%d", marker, os.Getpid())
	for range 16 {
		wg.Go(func() {
			_, _ = c.Execute(ctx, inst, provider.ExecRequest{Command: sleep, Timeout: time.Minute})
		})
	}
	sleeping := func() int {
		n := 0
		for _, p := range proctest.Leftovers(sleep) {
			if _, line, _ := strings.Cut(p, ": "); strings.HasPrefix(line, sleep+" ") {
				n++
			}
		}
		return n
	}
	require.Eventually(t, func() bool { return sleeping() == 16 }, 30*time.Second, 10*time.Millisecond)

	quick, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	start := time.Now()
	_, err := c.Execute(quick, inst, provider.ExecRequest{Command: "echo one too many", Timeout: time.Minute})
	require.ErrorIs(t, err, provider.ErrBusy, "the command past the cap is refused")
	assert.Less(t, time.Since(start), time.Second, "at once, not queued")
	var perr *provider.Error
	require.True(t, errors.As(err, &perr))
	assert.Positive(t, perr.RetryAfter, "with when to try again")
	assert.Contains(t, err.Error(), "16")

	other := c.create(t)
	assert.Equal(t, "fine\n", c.exec(t, other, "echo fine").Output, "another instance is not held up")
	cancel()
	wg.Wait()
	assert.Equal(t, "again\n", c.exec(t, inst, "echo again").Output, "once commands end, more may start")
}
