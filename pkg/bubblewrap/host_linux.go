package bubblewrap

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ReadHost reads what this host gives the server. dir is on the filesystem
// whose size is DiskMB; a folder not made yet stands for the nearest one
// above it that is.
func ReadHost(dir string) (Host, error) {
	own, err := readOwnCgroups()
	if err != nil {
		return Host{}, err
	}

	var h Host
	memory, err := memTotal(readString("/proc/meminfo"))
	if err != nil {
		return Host{}, err
	}
	if limit, ok := own.limit("memory", memoryLimit); ok {
		memory = min(memory, limit)
	}
	h.MemoryMB = int(memory / (1 << 20))

	if h.DiskMB, err = diskSize(dir); err != nil {
		return Host{}, fmt.Errorf("read the size of the data folder's disk: %w", bare(err))
	}

	h.CPU = float64(runtime.NumCPU()) // the CPUs this process may run on
	if quota, ok := own.limit("cpu", cpuLimit); ok {
		h.CPU = min(h.CPU, quota)
	}

	pidMax, err1 := strconv.Atoi(strings.TrimSpace(readString("/proc/sys/kernel/pid_max")))
	threadsMax, err2 := strconv.Atoi(strings.TrimSpace(readString("/proc/sys/kernel/threads-max")))
	if err := errors.Join(err1, err2); err != nil {
		return Host{}, fmt.Errorf("read the kernel's pid_max and threads-max: %w", err)
	}
	h.Processes = min(pidMax, threadsMax)
	if limit, ok := own.limit("pids", pidsLimit); ok {
		h.Processes = min(h.Processes, int(limit))
	}
	return h, nil
}

// MemoryLimit is the lowest memory limit, in bytes, that the server's
// cgroup or one above it sets: false where none does, or where the
// cgroups cannot be read.
func MemoryLimit() (float64, bool) {
	own, err := readOwnCgroups()
	if err != nil {
		return 0, false
	}
	return own.limit("memory", memoryLimit)
}

// readOwnCgroups finds the server's own cgroups.
func readOwnCgroups() (ownCgroups, error) {
	mounts, err := readMounts()
	if err != nil {
		return ownCgroups{}, fmt.Errorf("read the mounts: %w", err)
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ownCgroups{}, fmt.Errorf("read the server's cgroups: %w", err)
	}
	return ownCgroups{mounts: mounts, paths: cgroupPaths(string(self)), read: readString}, nil
}

// memTotal reads MemTotal from /proc/meminfo, in bytes.
func memTotal(meminfo string) (float64, error) {
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0, fmt.Errorf("read MemTotal: %w", err)
			}
			return kb * 1024, nil
		}
	}
	return 0, errors.New("/proc/meminfo has no MemTotal")
}

// diskSize is the size, in MiB, of the filesystem holding dir, or the
// nearest folder above it that exists.
func diskSize(dir string) (int, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	for {
		var st unix.Statfs_t
		err := unix.Statfs(dir, &st)
		if err == nil {
			return int(st.Blocks * uint64(st.Frsize) >> 20), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || dir == filepath.Dir(dir) {
			return 0, &fs.PathError{Op: "statfs", Path: dir, Err: err}
		}
		dir = filepath.Dir(dir)
	}
}

// ownCgroups are the server's own cgroups, and those above them, whose
// limits bound the server and everything it starts.
type ownCgroups struct {
	mounts []mount
	paths  map[string]string // the server's cgroup, by controller ("" for cgroup v2)
	read   func(string) string
}

// limit is the lowest limit the server's cgroup, or one above it, sets with
// controller: in its cgroup v1 hierarchy where there is one, else on
// cgroup v2. value reads a folder's limit (v1: a cgroup v1 folder), false
// where it sets none. limit is false where no folder sets one.
func (o ownCgroups) limit(controller string, value func(read func(string) string, dir string, v1 bool) (float64, bool)) (float64, bool) {
	dir, top := cgroupFolder(o.mounts, "cgroup", controller, o.paths[controller])
	v1 := dir != ""
	if _, ok := o.paths[""]; !v1 && ok {
		dir, top = cgroupFolder(o.mounts, "cgroup2", "", o.paths[""])
	}
	lowest, found := math.Inf(1), false
	for dir != "" {
		if v, ok := value(o.read, dir, v1); ok {
			lowest, found = min(lowest, v), true
		}
		if dir == top {
			break
		}
		dir = filepath.Dir(dir)
	}
	return lowest, found
}

// parseLimit reads a cgroup limit; false for "max" or -1 (none), or for
// a file that could not be read ("").
func parseLimit(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return v, err == nil && v >= 0
}

// memoryLimit reads a folder's memory limit, in bytes.
func memoryLimit(read func(string) string, dir string, v1 bool) (float64, bool) {
	if v1 {
		// cgroup v1 writes "no limit" as the largest number of whole pages.
		v, ok := parseLimit(read(filepath.Join(dir, "memory.limit_in_bytes")))
		return v, ok && v < v1NoLimit
	}
	return parseLimit(read(filepath.Join(dir, "memory.max")))
}

// v1NoLimit is where cgroup v1's memory limits that limit nothing begin:
// its "no limit" is 2^63 less one page, whatever the page size.
const v1NoLimit = 1 << 62

// cpuLimit reads a folder's CPU quota, in CPUs.
func cpuLimit(read func(string) string, dir string, v1 bool) (float64, bool) {
	// cgroup v2 writes both in one file: "50000 100000", or "max 100000".
	quota, period, _ := strings.Cut(strings.TrimSpace(read(filepath.Join(dir, "cpu.max"))), " ")
	if v1 {
		quota, period = read(filepath.Join(dir, "cpu.cfs_quota_us")), read(filepath.Join(dir, "cpu.cfs_period_us"))
	}
	us, okQuota := parseLimit(quota)
	per, okPeriod := parseLimit(period)
	if !okQuota || !okPeriod || per == 0 {
		return 0, false
	}
	return us / per, true
}

// pidsLimit reads a folder's limit on processes.
func pidsLimit(read func(string) string, dir string, _ bool) (float64, bool) {
	return parseLimit(read(filepath.Join(dir, "pids.max")))
}
