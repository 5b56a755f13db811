package bubblewrap

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadHostReadsThisHost(t *testing.T) {
	h, err := ReadHost(filepath.Join(t.TempDir(), "not", "made", "yet"))
	require.NoError(t, err, "a data folder not made yet is on its parent's disk")
	total, err := memTotal(readString("/proc/meminfo"))
	require.NoError(t, err)
	assert.Positive(t, h.MemoryMB)
	assert.LessOrEqual(t, h.MemoryMB, int(total/(1<<20)))
	assert.Positive(t, h.DiskMB)
	assert.Positive(t, h.CPU)
	assert.LessOrEqual(t, h.CPU, float64(runtime.NumCPU()))
	assert.Positive(t, h.Processes)
}

func TestTheServersOwnCgroupsBoundTheHost(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		// cgroup v1: a limit on the server's own group, a lower one above it.
		"memory/outer/memory.limit_in_bytes":        "9223372036854771712",
		"memory/outer/server/memory.limit_in_bytes": "2147483648",
		"memory/memory.limit_in_bytes":              "9223372036854771712",
		"cpu/outer/cpu.cfs_quota_us":                "150000",
		"cpu/outer/cpu.cfs_period_us":               "100000",
		"cpu/outer/server/cpu.cfs_quota_us":         "-1",
		"cpu/outer/server/cpu.cfs_period_us":        "100000",
		// cgroup v2, in a container: its root is the container's own group.
		"unified/server/memory.max": "max",
		"unified/server/cpu.max":    "50000 100000",
		"unified/server/pids.max":   "512",
		"unified/memory.max":        "1073741824",
		"unified/pids.max":          "max",
	}
	for name, content := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(content+"\n"), 0o644))
	}
	hybrid := parseMounts(strings.Join([]string{
		"30 25 0:26 / " + root + "/memory rw - cgroup cgroup rw,memory",
		"31 25 0:27 / " + root + "/cpu rw - cgroup cgroup rw,cpu,cpuacct",
		"32 25 0:28 /container " + root + "/unified rw - cgroup2 cgroup2 rw",
	}, "\n"))

	v1 := ownCgroups{mounts: hybrid, paths: cgroupPaths("4:memory:/outer/server\n2:cpu,cpuacct:/outer/server\n0::/container/server\n"), read: readString}
	limit, ok := v1.limit("memory", memoryLimit)
	assert.True(t, ok)
	assert.Equal(t, float64(2<<30), limit, "the server's own group's limit, the lowest")
	limit, ok = v1.limit("cpu", cpuLimit)
	assert.True(t, ok)
	assert.Equal(t, 1.5, limit, "the quota of the group above the server's")
	limit, ok = v1.limit("pids", pidsLimit)
	assert.True(t, ok, "pids has no cgroup v1 hierarchy here: cgroup v2's")
	assert.Equal(t, 512.0, limit)

	v2 := ownCgroups{mounts: hybrid, paths: cgroupPaths("0::/container/server\n"), read: readString}
	limit, ok = v2.limit("memory", memoryLimit)
	assert.True(t, ok)
	assert.Equal(t, float64(1<<30), limit, "the container's group above the server's, as far as the mount shows")
	limit, ok = v2.limit("cpu", cpuLimit)
	assert.True(t, ok)
	assert.Equal(t, 0.5, limit)

	none := ownCgroups{mounts: hybrid, paths: cgroupPaths("0::/container/server\n"), read: func(string) string { return "max" }}
	_, ok = none.limit("memory", memoryLimit)
	assert.False(t, ok, "max everywhere: no limit")
	unlimitedV1 := ownCgroups{mounts: hybrid, paths: cgroupPaths("4:memory:/outer\n"), read: readString}
	_, ok = unlimitedV1.limit("memory", memoryLimit)
	assert.False(t, ok, "cgroup v1's largest number of pages is no limit")
	_, ok = ownCgroups{paths: cgroupPaths("0::/\n"), read: readString}.limit("memory", memoryLimit)
	assert.False(t, ok, "no cgroup mounted: no limit")
}
