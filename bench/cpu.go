package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is Linux's USER_HZ, the unit of the CPU times in /proc/<pid>/stat.
const clockTicks = 100

// cpuTime is the CPU time (user and system) process pid has used so far.
func cpuTime(pid int) (time.Duration, error) {
	fields, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime and stime, fields 14 and 15
		n, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// minorFaults counts the page faults process pid has taken so far that
// read nothing from disk: each is a page of its memory coming into use.
func minorFaults(pid int) (int64, error) {
	fields, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(fields[7]), 10, 64) // minflt, field 10
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return n, nil
}

// statFields are the fields of /proc/<pid>/stat from field 3 on (the
// first at index 0), up to stime, field 15, at least.
func statFields(pid int) ([][]byte, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields counted from after its closing one start at field 3.
	end := bytes.LastIndexByte(raw, ')')
	if end < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	fields := bytes.Fields(raw[end+1:])
	if len(fields) < 13 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields))
	}
	return fields, nil
}

// postgresCPU is the CPU time used so far by each Postgres backend that
// serves the database, by pid: Postgres names a backend's database in its
// process title ("postgres: 15/main: user db 127.0.0.1(5432) idle"), which
// leaves out the sessions of other databases on a shared server, and its
// background processes (the WAL writer, the checkpointer, autovacuum).
func postgresCPU(database string) map[int]time.Duration {
	out := map[int]time.Duration{}
	titles, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, path := range titles {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		title := string(bytes.ReplaceAll(raw, []byte{0}, []byte{' '}))
		if !strings.HasPrefix(title, "postgres: ") || !strings.Contains(title, " "+database+" ") {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil {
			continue
		}
		if t, err := cpuTime(pid); err == nil {
			out[pid] = t
		}
	}
	return out
}

// postgresSpent is the CPU time the backends spent between two readings:
// a backend that started meanwhile counts whole, one that ended meanwhile
// is lost (its last readings with it), so it errs low, never below zero.
func postgresSpent(before, after map[int]time.Duration) time.Duration {
	var total time.Duration
	for pid, t := range after {
		total += t - before[pid]
	}
	return total
}

// cpuUse is the CPU time spent while requests were recorded, by the process
// that served them and by Postgres.
type cpuUse struct{ Process, Postgres time.Duration }

func (u *cpuUse) add(o cpuUse) {
	u.Process += o.Process
	u.Postgres += o.Postgres
}

// perRequest divides the CPU time by the requests recorded meanwhile.
func (u cpuUse) perRequest(s series) (process, postgres time.Duration) {
	n := time.Duration(max(s.requests(), 1))
	return u.Process / n, u.Postgres / n
}

// measureCPU reads the CPU times of process pid and of the database's
// backends at the start and at the end of a closed loop's recorded window;
// the returned function waits for the second reading.
func measureCPU(pid int, database string, l closedLoop) func() cpuUse {
	done := make(chan cpuUse, 1)
	go func() {
		time.Sleep(l.warmup)
		spent := startCPU(pid, database)
		time.Sleep(l.window)
		done <- spent()
	}()
	return func() cpuUse { return <-done }
}

// startCPU reads the CPU times now; the returned function reads them again
// and returns what was spent in between.
func startCPU(pid int, database string) func() cpuUse {
	p0, _ := cpuTime(pid)
	pg0 := postgresCPU(database)
	return func() cpuUse {
		p1, _ := cpuTime(pid)
		return cpuUse{Process: p1 - p0, Postgres: postgresSpent(pg0, postgresCPU(database))}
	}
}

// startFaults counts process pid's page faults now; the returned function
// counts them again and returns how many it took in between.
func startFaults(pid int) func() int64 {
	f0, _ := minorFaults(pid)
	return func() int64 {
		f1, _ := minorFaults(pid)
		return f1 - f0
	}
}
