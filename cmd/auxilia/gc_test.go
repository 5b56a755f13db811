package main_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server collects garbage at GOGC 400 unless told otherwise, as its
// log and Go's own metrics say.
func TestTheServerCollectsGarbageLessOften(t *testing.T) {
	srv := instance(t, "GOGC=", "GOMEMLIMIT=")
	assert.Contains(t, srv.logs(), `"msg":"garbage collector","gogc":400`)
	_, body := fetch(t, srv.URL+"/metrics")
	assert.Contains(t, body, "\ngo_gc_gogc_percent 400\n")

	srv = instance(t, "GOGC=150", "GOMEMLIMIT=300MiB")
	_, body = fetch(t, srv.URL+"/metrics")
	assert.Contains(t, body, "\ngo_gc_gogc_percent 150\n", "the environment's GOGC stands")
	assert.Contains(t, body, "\ngo_gc_gomemlimit_bytes 3.145728e+08\n", "the environment's GOMEMLIMIT stands")
}

// In a cgroup that limits its memory, the server's heap stays under nine
// tenths of the limit: the collector works harder near it rather than let
// GOGC 400 grow the heap past what the kernel allows.
func TestTheServersHeapStaysUnderItsCgroupsMemory(t *testing.T) {
	procs := memoryCgroup(t, 512<<20)
	cmd := exec.Command("sh", "-c", `echo $$ > "$0" && exec "$1" serve`, procs, binary)
	data := t.TempDir()
	srv := startCommand(t, cmd, "AUXILIA_DATA_DIR="+data, "DATABASE_URL=", "AUXILIA_SECRET_KEYS=",
		"AUXILIA_LOCAL_PROVIDER=off", "GOGC=", "GOMEMLIMIT=")
	_, body := fetch(t, srv.URL+"/metrics")
	assert.Contains(t, body, "\ngo_gc_gomemlimit_bytes 4.8318382e+08\n", "nine tenths of 512 MiB")
	assert.Contains(t, srv.logs(), `"gogc":400,"memory_limit_mib":460`)
}

// memoryCgroup makes a cgroup below this process's own that limits memory
// to limit bytes, and returns the file that moves a process into it.
func memoryCgroup(t *testing.T, limit int) string {
	t.Helper()
	own, v1 := ownMemoryCgroup(t)
	dir := filepath.Join(own, "auxilia-gc-test-"+filepath.Base(t.TempDir()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("this test makes a memory cgroup, and this process may not (%v): the cgroup's limit is not tried here", err)
	}
	t.Cleanup(func() { _ = os.Remove(dir) })
	file := "memory.max"
	if v1 {
		file = "memory.limit_in_bytes"
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(strconv.Itoa(limit)), 0o644))
	return filepath.Join(dir, "cgroup.procs")
}

// ownMemoryCgroup is the folder of this process's cgroup with the memory
// controller: its cgroup v1 memory hierarchy's, or else its cgroup v2 one's
// where that hands the controller on to the cgroups below it.
func ownMemoryCgroup(t *testing.T) (dir string, v1 bool) {
	t.Helper()
	f, err := os.Open("/proc/self/cgroup")
	require.NoError(t, err)
	defer f.Close()
	var unified string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			unified = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				return filepath.Join("/sys/fs/cgroup/memory", parts[2]), true
			}
		}
	}
	dir = filepath.Join("/sys/fs/cgroup", unified)
	subtree, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if !slices.Contains(strings.Fields(string(subtree)), "memory") {
		t.Skipf("this process's cgroup v2 (%s) hands no memory controller to cgroups below it: the cgroup's limit is not tried here", dir)
	}
	return dir, false
}
