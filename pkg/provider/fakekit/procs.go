package fakekit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Process is a process of this host as /proc/<pid>/stat describes it: the
// fakes run their sandboxes' shells as host processes and end them by these.
type Process struct {
	PID, Parent, Session int
}

// Processes lists the host's processes from /proc. One that ends while it
// is read is left out.
func Processes() []Process {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	procs := make([]Process, 0, len(stats))
	for _, stat := range stats {
		raw, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session …: comm may hold spaces and parentheses.
		fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
		if len(fields) < 4 {
			continue
		}
		pid, err1 := strconv.Atoi(filepath.Base(filepath.Dir(stat)))
		parent, err2 := strconv.Atoi(fields[1])
		session, err3 := strconv.Atoi(fields[3])
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		procs = append(procs, Process{PID: pid, Parent: parent, Session: session})
	}
	return procs
}
