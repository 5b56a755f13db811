package bubblewrap

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// probePrefix starts the names of the folders Available makes for its trial
// jail: bubblewrap-probe-PID-START-…, where PID is the server's process and
// START the time it started, so that another server can tell that the
// folder's maker is gone (a server that crashed leaves its folder behind)
// without ever taking a live one's: several may share a host.
const probePrefix = "bubblewrap-probe-"

// newProbeFolder makes a folder for a trial jail in dir.
func newProbeFolder(dir string) (string, error) {
	pid := os.Getpid()
	start, err := processStart(pid)
	if err != nil {
		return "", err
	}
	return os.MkdirTemp(dir, fmt.Sprintf("%s%d-%d-", probePrefix, pid, start))
}

// sweepProbes removes the probe folders in dir whose maker is gone.
func sweepProbes(dir string) {
	folders, _ := filepath.Glob(filepath.Join(dir, probePrefix+"*"))
	for _, folder := range folders {
		pid, start, ok := probeMaker(filepath.Base(folder))
		if !ok {
			continue // not named by this package
		}
		if now, err := processStart(pid); err == nil && now == start {
			continue // its maker runs
		}
		_ = os.RemoveAll(folder)
	}
}

// probeMaker reads the pid and start time of a probe folder's maker from
// its name.
func probeMaker(name string) (pid int, start uint64, ok bool) {
	parts := strings.SplitN(strings.TrimPrefix(name, probePrefix), "-", 3)
	if len(parts) != 3 {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	start, err = strconv.ParseUint(parts[1], 10, 64)
	return pid, start, err == nil
}

// processStart is when process pid started, in clock ticks since the host
// booted: with the pid, it names one process for good.
func processStart(pid int) (uint64, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// pid (comm) state … with starttime the 22nd field, the 20th after comm.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 20 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return strconv.ParseUint(fields[19], 10, 64)
}
