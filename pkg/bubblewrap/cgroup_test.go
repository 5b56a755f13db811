package bubblewrap

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/proctest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newCgroups returns cgroups in a scope of the test's own, removed at its
// end. The test machines have writable cgroups for root (cgroup v1 memory
// and pids); an unprivileged server has none, and says so.
func newCgroups(t *testing.T) *Cgroups {
	t.Helper()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	cs, err := OpenCgroups("bubblewrap-test-" + hex.EncodeToString(b))
	if os.Geteuid() != 0 {
		require.ErrorIs(t, err, ErrNoCgroups, "an unprivileged server cannot write this host's cgroups")
		t.Skip("cgroups take root on this host")
	}
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cs.Sweep()) })
	return cs
}

// runAll runs each command in its own jail at once, and returns their
// outputs (stdout and stderr) in order.
func runAll(t *testing.T, j Jail, commands ...string) []string {
	t.Helper()
	outs := make([]string, len(commands))
	var wg sync.WaitGroup
	for i, command := range commands {
		wg.Go(func() {
			var out output
			res, err := j.Run(context.Background(), command, time.Minute, &out, &out)
			outs[i] = fmt.Sprintf("%s[exit %d, %v]", out.String(), res.ExitCode, err)
		})
	}
	wg.Wait()
	return outs
}

// holdMemory allocates (and touches) mb MiB, holds it while the others
// allocate theirs, then says so.
func holdMemory(mb int) string {
	return fmt.Sprintf(`python3 -c 'import time; b = b"x" * (%d << 20); time.sleep(3); print("held")'`, mb)
}

func TestCgroupBoundsTheMemoryOfItsJailsTogether(t *testing.T) {
	cs := newCgroups(t)
	g, leave, err := cs.Join("instance", CgroupLimits{MemoryMB: 256})
	require.NoError(t, err)
	defer leave()
	j := newJail(t)
	j.MemoryMB = 256 // each process alone fits
	j.Cgroup = g

	outs := runAll(t, j, holdMemory(160), holdMemory(160))
	held := strings.Count(strings.Join(outs, ""), "held")
	assert.Less(t, held, 2, "320 MiB do not fit in 256 together: %q", outs)
	assert.Contains(t, strings.Join(outs, ""), "exit 137", "the kernel killed one (SIGKILL): %q", outs)

	j.Cgroup = nil
	outs = runAll(t, j, holdMemory(160), holdMemory(160))
	assert.Equal(t, 2, strings.Count(strings.Join(outs, ""), "held"), "without the cgroup each fits alone: %q", outs)
}

func TestCgroupBoundsTheProcessesOfItsJailsTogether(t *testing.T) {
	cs := newCgroups(t)
	g, leave, err := cs.Join("instance", CgroupLimits{MaxProcesses: 16})
	require.NoError(t, err)
	defer leave()
	j := newJail(t)
	j.MaxProcesses = 16
	j.Cgroup = g

	// Each forks until refused, then holds its children while the other forks.
	hold := strings.Replace(forkUntilRefused, "print(n, e.errno)", "print(n, e.errno); time.sleep(2)", 1)
	made, reported := 0, 0
	for _, out := range runAll(t, j, hold, hold) {
		// A jail may find no room left even to start its command.
		var n, errno int
		if _, err := fmt.Sscan(out, &n, &errno); err == nil {
			made += n
			reported++
		}
	}
	require.Positive(t, reported, "at least the first jail forked")
	// Each forking jail's init and python count too. A jail left no room
	// to start its python does not report: the other's forks took its share.
	assert.LessOrEqual(t, made, 16-2*reported, "the two jails share MaxProcesses")
	assert.Empty(t, leftovers())
}

func TestCgroupHoldsEveryProcessOfTheCommand(t *testing.T) {
	cs := newCgroups(t)
	g, leave, err := cs.Join("instance", CgroupLimits{MemoryMB: 512, MaxProcesses: 64})
	require.NoError(t, err)
	defer leave()
	j := newJail(t)
	j.Cgroup = g
	stdout, _, res := run(t, j, "sh -c 'cat /proc/self/cgroup'")
	require.Equal(t, 0, res.ExitCode)
	require.NotEmpty(t, cs.layout.cpu, "the test machines have a writable cpu controller")
	for _, controller := range []string{"memory", "pids", "cpu"} {
		assert.Regexp(t, `(?m)^\d+:`+controller+`:.*/`+cs.scope+`/instance$`, stdout, "a grandchild of the command is in the group")
	}
}

func TestCgroupIsRemovedByItsLastUser(t *testing.T) {
	cs := newCgroups(t)
	g, first, err := cs.Join("instance", CgroupLimits{MemoryMB: 64})
	require.NoError(t, err)
	again, second, err := cs.Join("instance", CgroupLimits{MemoryMB: 64})
	require.NoError(t, err)
	assert.Equal(t, g, again, "one group per name")
	assert.Equal(t, fmt.Sprint(64<<20)+"\n", readString(filepath.Join(g.memory, "memory.limit_in_bytes")))

	first()
	first()
	assert.DirExists(t, g.memory, "a group stays while a jail uses it")
	second()
	for _, dir := range []string{g.memory, g.pids, g.cpu} {
		assert.NoDirExists(t, dir)
		assert.NoDirExists(t, filepath.Dir(dir), "the scope's folder goes with its last group")
	}
}

func TestCgroupSweepRemovesWhatAStoppedServerLeft(t *testing.T) {
	cs := newCgroups(t)
	used, leave, err := cs.Join("used", CgroupLimits{})
	require.NoError(t, err)
	defer leave()
	// A group a stopped server left, with a process still in it.
	left := cs.group("left")
	for _, dir := range left.folders() {
		require.NoError(t, os.Mkdir(dir, 0o755))
	}
	sleeper := exec.Command("sleep", marker)
	require.NoError(t, sleeper.Start())
	go func() { _ = sleeper.Wait() }()
	require.NoError(t, left.addTree(sleeper.Process.Pid))
	names, err := cs.Groups()
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"used", "left"}, names)

	require.NoError(t, cs.Sweep())
	for _, dir := range left.folders() {
		assert.NoDirExists(t, dir)
	}
	assert.DirExists(t, used.memory, "a group this server uses stays")
	assert.Eventually(t, func() bool { return len(leftovers()) == 0 }, 5*time.Second, 10*time.Millisecond, "what ran in it was ended")
}

func TestFindCgroups(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"memory/server", "pids", "cpu", "unified/server"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
	}
	hybrid := strings.Join([]string{
		"30 25 0:26 / " + root + "/memory rw,relatime shared:9 - cgroup cgroup rw,memory",
		"31 25 0:27 / " + root + "/pids rw,relatime shared:10 - cgroup cgroup rw,pids",
		"32 25 0:28 / " + root + "/unified rw,relatime shared:11 - cgroup2 cgroup2 rw",
	}, "\n")
	withCPU := hybrid + "\n33 25 0:29 / " + root + "/cpu rw,relatime shared:12 - cgroup cgroup rw,cpu,cpuacct"
	self := "8:pids:/\n4:memory:/server\n2:cpu,cpuacct:/\n0::/server\n"
	none := func(string) string { return "" }

	layout, err := findCgroups(parseMounts(hybrid), self, none)
	require.NoError(t, err)
	assert.Equal(t, cgroupLayout{memory: root + "/memory/server", pids: root + "/pids"}, layout,
		"the controllers are cgroup v1's: the server's own folders there")
	layout, err = findCgroups(parseMounts(withCPU), self, none)
	require.NoError(t, err)
	assert.Equal(t, cgroupLayout{memory: root + "/memory/server", pids: root + "/pids", cpu: root + "/cpu"}, layout,
		"with cgroup v1's cpu hierarchy where there is one")

	controllers := func(list string) func(string) string {
		return func(name string) string {
			if name == root+"/unified/server/cgroup.controllers" {
				return list
			}
			return ""
		}
	}
	layout, err = findCgroups(parseMounts(withCPU), self, controllers("cpu memory pids\n"))
	require.NoError(t, err)
	assert.Equal(t, cgroupLayout{unified: root + "/unified/server", cpu: root + "/unified/server"}, layout,
		"cgroup v2 first, where it has them")
	layout, err = findCgroups(parseMounts(withCPU), self, controllers("memory pids\n"))
	require.NoError(t, err)
	assert.Equal(t, cgroupLayout{unified: root + "/unified/server"}, layout,
		"cgroup v2 without its cpu controller bounds no CPU, rather than mix versions")

	_, err = findCgroups(parseMounts(hybrid), "0::/server\n", none)
	require.ErrorIs(t, err, ErrNoCgroups)
	assert.Equal(t, ErrNoCgroups.Error()+": the server's cgroup v2 lacks the memory or pids controller; "+
		"there are no cgroup v1 memory and pids hierarchies", err.Error())
}

func TestCgroupV2Files(t *testing.T) {
	// cgroup v2 cannot hold memory and pids on the test machines (cgroup v1
	// has them): a folder with the files cgroup v2 would have stands in.
	for _, tc := range []struct {
		name        string
		cpu         bool
		controllers string
		files       map[string]string
	}{
		{"without the cpu controller", false, "+memory +pids", map[string]string{}},
		{"with the cpu controller", true, "+cpu +memory +pids", map[string]string{"scope/instance/cpu.max": "50000 100000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own := t.TempDir()
			cs := &Cgroups{layout: cgroupLayout{unified: own}, scope: "scope"}
			if tc.cpu {
				cs.layout.cpu = own
			}
			group := filepath.Join(own, "scope", "instance")
			require.NoError(t, os.MkdirAll(group, 0o755))
			for _, f := range []string{"cgroup.subtree_control", "scope/cgroup.subtree_control", "scope/instance/memory.max",
				"scope/instance/memory.swap.max", "scope/instance/pids.max", "scope/instance/cpu.max", "scope/instance/cgroup.procs"} {
				require.NoError(t, os.WriteFile(filepath.Join(own, f), nil, 0o644))
			}

			g, leave, err := cs.Join("instance", CgroupLimits{MemoryMB: 100, MaxProcesses: 20, CPU: 0.5})
			require.NoError(t, err)
			defer leave()
			require.NoError(t, g.addTree(4242))
			want := map[string]string{
				"cgroup.subtree_control":         tc.controllers,
				"scope/cgroup.subtree_control":   tc.controllers,
				"scope/instance/memory.max":      fmt.Sprint(100 << 20),
				"scope/instance/memory.swap.max": "0",
				"scope/instance/pids.max":        "20",
				"scope/instance/cpu.max":         "",
				"scope/instance/cgroup.procs":    "4242",
			}
			maps.Copy(want, tc.files)
			for file, value := range want {
				assert.Equal(t, value, readString(filepath.Join(own, file)), file)
			}
		})
	}
}

// cpuSeconds adds up the CPU time the loops of each output of
// proctest.BusyLoops took.
func cpuSeconds(t *testing.T, outs []string) float64 {
	t.Helper()
	total := 0.0
	for _, out := range outs {
		used, err := proctest.CPUSeconds(out)
		require.NoError(t, err)
		total += used
	}
	return total
}

func TestCgroupBoundsTheCPUOfItsJailsTogether(t *testing.T) {
	cs := newCgroups(t)
	require.NotEmpty(t, cs.layout.cpu, "the test machines have a writable cpu controller")
	g, leave, err := cs.Join("instance", CgroupLimits{CPU: 0.1})
	require.NoError(t, err)
	defer leave()
	quota := map[string]string{"cpu.cfs_quota_us": "10000\n", "cpu.cfs_period_us": "100000\n"}
	if cs.layout.unified != "" {
		quota = map[string]string{"cpu.max": "10000 100000\n"}
	}
	for file, want := range quota {
		assert.Equal(t, want, readString(filepath.Join(g.cpu, file)), file)
	}

	// Two jails of three busy loops each: a tenth of a CPU between them.
	j := newJail(t)
	j.Cgroup = g
	start := time.Now()
	used := cpuSeconds(t, runAll(t, j, proctest.BusyLoops(3), proctest.BusyLoops(3)))
	bound := 0.1*time.Since(start).Seconds() + 0.2 // a margin for the periods' edges and the shells
	assert.Greater(t, used, 0.05, "the loops ran")
	assert.Less(t, used, bound, "the loops shared a tenth of a CPU")

	j.Cgroup = nil
	free := cpuSeconds(t, runAll(t, j, proctest.BusyLoops(3), proctest.BusyLoops(3)))
	assert.Greater(t, free, 1.5*used, "without the group, the same loops take more")
}
