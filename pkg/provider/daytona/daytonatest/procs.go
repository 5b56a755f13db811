package daytonatest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// hostGroup finds the host's id of the process group that is nspgid in
// the pid namespace ns (as /proc/PID/ns/pid reads), by any process of the
// group still there: the first field of its NSpgid line is its group's id
// on the host, the last its id in the jail. The group's first process may
// have ended already while what it started goes on; where nothing of the
// group is left, found is false.
func hostGroup(ns string, nspgid int) (pgid int, found bool) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	want := strconv.Itoa(nspgid)
	for _, dir := range dirs {
		if link, err := os.Readlink(dir + "/ns/pid"); err != nil || link != ns {
			continue
		}
		raw, err := os.ReadFile(dir + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n") {
			ids, ok := strings.CutPrefix(line, "NSpgid:")
			if !ok {
				continue
			}
			fields := strings.Fields(ids)
			if len(fields) > 1 && fields[len(fields)-1] == want {
				if n, err := strconv.Atoi(fields[0]); err == nil {
					return n, true
				}
			}
			break
		}
	}
	return 0, false
}

// children lists the processes whose parent is pid, as gopsutil's
// Process.Children does: those that were pid's children and whose parent
// died since are no longer among them (they belong to the jail's first
// process now).
func children(pid int) []int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, dir := range dirs {
		raw, err := os.ReadFile(dir + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(raw, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(raw[i+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) {
			continue
		}
		if child, err := strconv.Atoi(filepath.Base(dir)); err == nil {
			out = append(out, child)
		}
	}
	return out
}

// exists reports whether pid is a process, a zombie included.
func exists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// awaitExit waits, up to limit, until pid has exited (a zombie has: its
// files are closed).
func awaitExit(pid int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if i := bytes.LastIndexByte(raw, ')'); i >= 0 && i+2 < len(raw) && (raw[i+2] == 'Z' || raw[i+2] == 'X') {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Processes lists the command lines (arguments joined by spaces) of the
// processes running in a sandbox's jail, the jail's own launcher included;
// none when it runs nothing.
func (s *Server) Processes(sandboxID string) []string {
	s.jailsMu.Lock()
	j := s.jails[sandboxID]
	s.jailsMu.Unlock()
	if j == nil || j.ctx.Err() != nil {
		return nil
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, dir := range dirs {
		if link, err := os.Readlink(dir + "/ns/pid"); err != nil || link != j.ns {
			continue
		}
		raw, err := os.ReadFile(dir + "/cmdline")
		if err != nil || len(raw) == 0 { // zombies have none
			continue
		}
		out = append(out, strings.TrimSpace(string(bytes.ReplaceAll(raw, []byte{0}, []byte{' '}))))
	}
	return out
}
