package bubblewrap

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forkUntilRefused forks sleeping children until the kernel refuses, then
// prints how many it made and the errno of the refusal.
const forkUntilRefused = `python3 -c '
import os, time  # ` + marker + `
n = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        n += 1
except OSError as e:
    print(n, e.errno)
'`

func TestProcessLimit(t *testing.T) {
	j := newJail(t)
	j.MaxProcesses = 10
	stdout, _, _ := run(t, j, forkUntilRefused)
	var made, errno int
	_, err := fmt.Sscan(stdout, &made, &errno)
	require.NoError(t, err, stdout)
	assert.Equal(t, int(syscall.EAGAIN), errno, "fork is refused")
	// The shell, python and bwrap's init count too.
	assert.LessOrEqual(t, made, 10-1, "no more than MaxProcesses")
	assert.GreaterOrEqual(t, made, 10-3, "nor much fewer")
	assert.Empty(t, leftovers())
}

func TestProcessLimitCountsEachJailAlone(t *testing.T) {
	// Were the limit counted per user, two jails of the same user holding 8
	// processes each would not both fit under 10.
	j := newJail(t)
	j.MaxProcesses = 10
	hold := "for i in 1 2 3 4 5 6 7; do sleep 1 & done; wait && echo all started"
	results := make(chan string, 2)
	for range 2 {
		go func() {
			var out output
			_, err := j.Run(context.Background(), hold, time.Minute, &out, nil)
			if err != nil {
				results <- err.Error()
				return
			}
			results <- out.String()
		}()
	}
	for range 2 {
		assert.Equal(t, "all started\n", <-results)
	}
}

func TestForkBombEndsTheCommandOnly(t *testing.T) {
	j := newJail(t)
	j.MaxProcesses = 32
	start := time.Now()
	// The bomb ends with the command: at its timeout, or sooner when every
	// fork past the limit has failed and the shells give up.
	_, err := j.Run(context.Background(), "sleep "+marker+" & bomb() { bomb | bomb & }; bomb; wait", 3*time.Second, nil, nil)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 20*time.Second)
	assert.Empty(t, leftovers(), "nothing of the bomb is left")
	require.NoError(t, exec.Command("true").Run(), "the server can still start processes")
	stdout, _, _ := run(t, j, "echo fine")
	assert.Equal(t, "fine\n", stdout, "and run commands")
}

func TestMemoryLimit(t *testing.T) {
	j := newJail(t)
	j.MemoryMB = 128
	_, stderr, res := run(t, j, "python3 -c 'b = bytearray(512 << 20)'")
	assert.NotEqual(t, 0, res.ExitCode, "one allocation past the limit fails")
	assert.Contains(t, stderr, "MemoryError")

	_, stderr, res = run(t, j, "python3 -c '\nx = []\nwhile True: x.append(bytearray(1 << 20))'")
	assert.NotEqual(t, 0, res.ExitCode, "a runaway allocation ends the command")
	assert.Contains(t, stderr, "MemoryError")

	stdout, _, _ := run(t, j, "python3 -c 'b = bytearray(32 << 20); print(len(b) >> 20)'")
	assert.Equal(t, "32\n", stdout, "allocations within the limit work")

	_, stderr, res = run(t, j, "head -c 200M /dev/zero > /tmp/fill")
	assert.NotEqual(t, 0, res.ExitCode, "/tmp is as large as the memory limit")
	assert.Contains(t, stderr, "No space left")
}

func TestFileSizeLimit(t *testing.T) {
	j := newJail(t)
	j.MaxFileMB = 1
	_, _, res := run(t, j, "head -c 3M /dev/zero > big")
	assert.NotEqual(t, 0, res.ExitCode)
	info, err := os.Stat(filepath.Join(j.Root, "big"))
	require.NoError(t, err)
	assert.LessOrEqual(t, info.Size(), int64(1<<20), "nothing past the limit was written")

	_, _, res = run(t, j, "head -c 512K /dev/zero > small")
	assert.Equal(t, 0, res.ExitCode, "files within the limit are fine")
}
