package bubblewrap

import (
	"path"
	"strconv"
	"strings"
)

// defaultPath is $PATH inside a jail.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// dataFile is a file made up for the jail, read by bwrap from a pipe.
type dataFile struct {
	dest, content string
}

// pipeFDs are the descriptor numbers at which bwrap finds its pipes.
type pipeFDs struct {
	info    int   // bwrap writes the first process's pid here
	release int   // bwrap waits for a byte here before it goes on
	status  int   // bwrap reports the command's exit code here
	data    []int // one per dataFile, in order
}

// dataFiles are the jail's made-up /etc files.
func (j Jail) dataFiles(uid, gid int) []dataFile {
	passwd, group := accounts(uid, gid, j.home())
	files := []dataFile{{"/etc/passwd", passwd}, {"/etc/group", group}}
	if !j.Network {
		files = append(files, dataFile{"/etc/hosts", offlineHosts})
	}
	return files
}

// environment is the whole environment of a command: nothing of the server's.
func (j Jail) environment() []string {
	env := []string{"PATH=" + defaultPath, "HOME=" + j.home(), "LANG=C.UTF-8", "TERM=dumb"}
	return append(env, j.Env...)
}

// options are bwrap's options for the jail. root is the absolute host path
// of j.Root; asRoot says that the server runs as root and writes the user
// namespace maps itself.
func (j Jail) options(root string, asRoot bool, files []dataFile, fds pipeFDs) []string {
	a := []string{"--unshare-all", "--unshare-user", "--die-with-parent", "--new-session", "--hostname", "sandbox"}
	if j.Network {
		a = append(a, "--share-net")
	}
	a = append(a, "--info-fd", itoa(fds.info), "--json-status-fd", itoa(fds.status))
	// bwrap waits until Run holds the jail's first process: before making
	// the jail when Run writes the user namespace maps, else before the command.
	if asRoot {
		a = append(a, "--userns-block-fd", itoa(fds.release))
	} else {
		a = append(a, "--block-fd", itoa(fds.release))
	}

	a = append(a, "--clearenv")
	for _, kv := range j.environment() {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}

	a = append(a, systemArgs(j.Network)...)
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
