package bubblewrap

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// DefaultPath is $PATH inside a jail, unless its Env says otherwise.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// dataFile is a file made up for the jail, read by bwrap from a pipe.
type dataFile struct {
	dest, content string
}

// pipeFDs are the descriptor numbers at which bwrap finds its pipes and
// files.
type pipeFDs struct {
	release int   // the jail's command waits for a line here before it starts
	ready   int   // the jail's command writes a line here when it is about to wait
	userns  int   // the jail's user namespace, when the server made it; else 0
	info    int   // bwrap writes the first process's pid here
	status  int   // bwrap reports the command's exit code here
	data    []int // one per dataFile, in order
	seccomp int   // bwrap reads the jail's system-call filter here
}

// dataFiles are the jail's made-up /etc files: its accounts, its hosts,
// and with network slirp4netns's resolver, not the host's.
func (j Jail) dataFiles(uid, gid int) []dataFile {
	passwd, group := accounts(uid, gid, j.home())
	files := []dataFile{{"/etc/passwd", passwd}, {"/etc/group", group}, {"/etc/hosts", jailHosts}}
	if j.Network {
		files = append(files, dataFile{"/etc/resolv.conf", "nameserver " + slirpDNS + "\n"})
	}
	return files
}

// gate is the start of the jail's command line: a shell that tells the
// server it is ready, waits for the word to go on, and only then runs the
// rest of the command line, with none of the descriptors bwrap left open
// (dash names them with one digit: the plumbing gives them first). Were
// the server gone before the word, the gate reads nothing and the command
// never starts.
func gate(fds pipeFDs) []string {
	script := fmt.Sprintf(`echo >&%d && read -r _ <&%d && exec "$@"`, fds.ready, fds.release)
	for _, fd := range []int{fds.release, fds.ready, fds.userns} {
		if fd > 0 {
			script += fmt.Sprintf(" %d<&-", fd)
		}
	}
	return []string{"/bin/sh", "-c", script, "jail"}
}

// environment is the whole environment of a command: nothing of the server's.
func (j Jail) environment() []string {
	term := "TERM=dumb"
	if j.tty != nil {
		term = TerminalEnv
	}
	env := []string{"PATH=" + DefaultPath, "HOME=" + j.home(), "LANG=C.UTF-8", term}
	return append(env, j.Env...)
}

// options are bwrap's options for the jail. root is the absolute host path
// of j.Root.
func (j Jail) options(root string, files []dataFile, fds pipeFDs) []string {
	a := []string{"--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--hostname", "sandbox"}
	if j.tty == nil {
		a = append(a, "--new-session") // a terminal's jail keeps its own session: see RunTerminal
	}
	// A server running as root gives bwrap the jail's user namespace, made
	// and mapped beforehand; otherwise bwrap makes its own.
	if fds.userns > 0 {
		a = append(a, "--userns", itoa(fds.userns))
	} else {
		a = append(a, "--unshare-user")
	}
	a = append(a, "--info-fd", itoa(fds.info), "--json-status-fd", itoa(fds.status))
	// bwrap applies the filter to the jail's first process and to the
	// command, right before it runs them (see the package doc).
	a = append(a, "--seccomp", itoa(fds.seccomp))

	a = append(a, "--clearenv")
	for _, kv := range j.environment() {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}

	a = append(a, systemArgs()...)
	for i, f := range files {
		a = append(a, "--perms", "0644", "--ro-bind-data", itoa(fds.data[i]), f.dest)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev")
	a = append(a, j.tmpfs("/tmp")...)
	a = append(a, j.tmpfs("/dev/shm")...)

	a = append(a, "--bind", root, j.WorkDir)
	for _, b := range j.Binds {
		op := "--bind"
		if b.ReadOnly {
			op = "--ro-bind"
		}
		a = append(a, op, b.Host, b.Sandbox)
	}
	if home := j.home(); home != j.WorkDir {
		if strings.HasPrefix(home, j.WorkDir+"/") {
			a = append(a, "--dir", home)
		} else {
			a = append(a, j.tmpfs(home)...)
		}
	}

	// Last, so that nothing but the mounts above can be written to (and so
	// fill the server's memory): /dev's device nodes stay usable.
	a = append(a, "--remount-ro", "/dev", "--remount-ro", "/")
	return append(a, "--chdir", j.WorkDir)
}

// tmpfs mounts a fresh tmpfs at dir, as large as the memory limit allows.
func (j Jail) tmpfs(dir string) []string {
	if j.MemoryMB > 0 {
		return []string{"--size", strconv.FormatInt(int64(j.MemoryMB)<<20, 10), "--tmpfs", path.Clean(dir)}
	}
	return []string{"--tmpfs", path.Clean(dir)}
}

func itoa(n int) string { return strconv.Itoa(n) }
