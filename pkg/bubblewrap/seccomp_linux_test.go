//go:build amd64 || arm64

package bubblewrap

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/auxilia/sandboxes/pkg/shell"
)

// seccompStatus is what a jail's command shows of the filters it runs
// under, and of those its jail's first process (bwrap's init) runs under.
const seccompStatus = `grep -E '^Seccomp(_filters)?:' /proc/self/status /proc/1/status`

func TestCommandsRunUnderTheFilter(t *testing.T) {
	j := newJail(t)
	for _, network := range []bool{false, true} {
		if network && checkTun(os.Geteuid() == 0) != nil {
			continue // no network for jails here
		}
		j.Network = network
		stdout, _, _ := run(t, j, seccompStatus)
		assertFiltered(t, stdout, "network %v", network)
	}
}

func TestTerminalsRunUnderTheFilter(t *testing.T) {
	j := newJail(t)
	master, tty, err := pty.Open()
	require.NoError(t, err)
	defer master.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		_, err := j.RunTerminal(ctx, InteractiveShell, tty)
		_ = tty.Close()
		ended <- err
	}()
	_, err = master.Write([]byte(seccompStatus + "; exit\r"))
	require.NoError(t, err)
	screen, _ := io.ReadAll(master) // EIO once the shell has ended
	require.NoError(t, <-ended)
	// The terminal ends its lines with \r\n.
	assertFiltered(t, strings.ReplaceAll(string(screen), "\r\n", "\n"), "the interactive shell of a terminal")
}

// assertFiltered checks seccompStatus's output: the command and the jail's
// first process each run under the jail's filter, and under those the
// server itself may run under.
func assertFiltered(t *testing.T, output string, msgAndArgs ...any) {
	t.Helper()
	for _, proc := range []string{"/proc/self/status", "/proc/1/status"} {
		assert.Contains(t, output, proc+":Seccomp:\t2\n", msgAndArgs...)
		_, filters, _ := strings.Cut(output, proc+":Seccomp_filters:\t")
		n, err := strconv.Atoi(strings.SplitN(filters, "\n", 2)[0])
		assert.True(t, err == nil && n >= 1, "%s: %q", proc, output)
	}
}

// Namespaces are where a command without capabilities gets them all, and
// with them the kernel's mount and nf_tables code.
func TestCommandsCannotMakeNamespaces(t *testing.T) {
	j := newJail(t)
	for _, command := range []string{"unshare -Ur true", "unshare -Urm mount -t tmpfs none /tmp", "unshare -Urn true"} {
		stdout, stderr, _ := run(t, j, command+" && echo made || echo refused")
		assert.Equal(t, "refused\n", stdout, command)
		assert.Contains(t, stderr, "Operation not permitted", command)
	}
}

// callRow is a system call a command makes, and what the filter answers.
type callRow struct {
	name string
	nr   int
	// flags is the first argument of the calls the filter judges by it:
	// clone, unshare and personality. The others have none.
	flags uint32
	// args are the call's arguments (after flags) in the Python of
	// callProbe, chosen so that the kernel, were there no filter, would
	// answer otherwise than want, unless the name says it refuses the call
	// too: it does to a command, which has no capabilities, and only the
	// program's answer then tells that the filter has it.
	args string
	want unix.Errno // 0: the call is let through
}

const sigchld = uint32(unix.SIGCHLD) // clone's exit signal

// callRows are the calls the filter refuses, and a few it must not.
func callRows() []callRow {
	rows := []callRow{
		{name: "clone", nr: unix.SYS_CLONE, flags: sigchld, args: "0, 0, 0, 0"},
		{name: "clone3", nr: unix.SYS_CLONE3, args: "buf, 0", want: unix.ENOSYS},
		{name: "unshare CLONE_FILES|CLONE_FS", nr: unix.SYS_UNSHARE, flags: unix.CLONE_FILES | unix.CLONE_FS},
		{name: "setns", nr: unix.SYS_SETNS, args: "-1, 0", want: unix.EPERM},

		{name: "mount", nr: unix.SYS_MOUNT, args: `s("none"), s("/tmp"), 1, 0, 0`, want: unix.EPERM},
		{name: "umount2", nr: unix.SYS_UMOUNT2, args: `s("/tmp"), 0x100`, want: unix.EPERM},
		{name: "pivot_root (the kernel refuses it too)", nr: unix.SYS_PIVOT_ROOT, args: `s("/tmp"), s("/tmp")`, want: unix.EPERM},
		{name: "chroot (the kernel refuses it too)", nr: unix.SYS_CHROOT, args: `s("/")`, want: unix.EPERM},
		{name: "fsopen (the kernel refuses it too)", nr: unix.SYS_FSOPEN, args: `s("tmpfs"), 0`, want: unix.EPERM},
		{name: "fsconfig", nr: unix.SYS_FSCONFIG, args: "-1, 0, 0, 0, 0", want: unix.EPERM},
		{name: "fsmount (the kernel refuses it too)", nr: unix.SYS_FSMOUNT, args: "-1, 0, 0", want: unix.EPERM},
		{name: "fspick (the kernel refuses it too)", nr: unix.SYS_FSPICK, args: `-1, s(""), 0`, want: unix.EPERM},
		{name: "move_mount (the kernel refuses it too)", nr: unix.SYS_MOVE_MOUNT, args: `-1, s(""), -1, s(""), 0`, want: unix.EPERM},
		{name: "open_tree", nr: unix.SYS_OPEN_TREE, args: `AT_FDCWD, s("/"), 0`, want: unix.EPERM},
		{name: "open_tree_attr", nr: unix.SYS_OPEN_TREE_ATTR, args: `AT_FDCWD, s("/"), 0, 0, 0`, want: unix.EPERM},
		{name: "mount_setattr", nr: unix.SYS_MOUNT_SETATTR, args: `-1, s(""), 0, 0, 0`, want: unix.EPERM},

		{name: "io_uring_setup", nr: unix.SYS_IO_URING_SETUP, args: "1, buf", want: unix.EPERM},
		{name: "io_uring_enter", nr: unix.SYS_IO_URING_ENTER, args: "-1, 0, 0, 0, 0, 0", want: unix.EPERM},
		{name: "io_uring_register", nr: unix.SYS_IO_URING_REGISTER, args: "-1, 0, 0, 0", want: unix.EPERM},

		{name: "add_key", nr: unix.SYS_ADD_KEY, args: `s("user"), s("key"), s("value"), 5, KEY_SPEC_PROCESS_KEYRING`, want: unix.EPERM},
		{name: "keyctl", nr: unix.SYS_KEYCTL, args: "KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0", want: unix.EPERM},
		{name: "request_key", nr: unix.SYS_REQUEST_KEY, args: `s("user"), s("absent"), 0, 0`, want: unix.EPERM},

		{name: "bpf", nr: unix.SYS_BPF, args: "BPF_MAP_CREATE, buf, 72", want: unix.EPERM},
		{name: "perf_event_open", nr: unix.SYS_PERF_EVENT_OPEN, args: "own_cpu_clock, 0, -1, -1, 0", want: unix.EPERM},
		{name: "userfaultfd", nr: unix.SYS_USERFAULTFD, args: "UFFD_USER_MODE_ONLY", want: unix.EPERM},

		{name: "kexec_load", nr: unix.SYS_KEXEC_LOAD, args: "0, 100, 0, 0", want: unix.EPERM},
		{name: "kexec_file_load", nr: unix.SYS_KEXEC_FILE_LOAD, args: "-1, -1, 0, 0, 0", want: unix.EPERM},
		{name: "init_module", nr: unix.SYS_INIT_MODULE, args: `0, 0, s("")`, want: unix.EPERM},
		{name: "finit_module", nr: unix.SYS_FINIT_MODULE, args: `-1, s(""), 0`, want: unix.EPERM},
		{name: "delete_module", nr: unix.SYS_DELETE_MODULE, args: `s("absent"), 0`, want: unix.EPERM},
		{name: "swapon (the kernel refuses it too)", nr: unix.SYS_SWAPON, args: `s("/absent"), 0`, want: unix.EPERM},
		{name: "swapoff (the kernel refuses it too)", nr: unix.SYS_SWAPOFF, args: `s("/absent")`, want: unix.EPERM},
		{name: "reboot (the kernel refuses it too)", nr: unix.SYS_REBOOT, args: "0, 0, 0, 0", want: unix.EPERM},
		{name: "settimeofday", nr: unix.SYS_SETTIMEOFDAY, args: "1, 0", want: unix.EPERM},
		{name: "clock_settime", nr: unix.SYS_CLOCK_SETTIME, args: "0, 0", want: unix.EPERM},
		{name: "clock_adjtime", nr: unix.SYS_CLOCK_ADJTIME, args: "-1, buf", want: unix.EPERM},
		{name: "adjtimex", nr: unix.SYS_ADJTIMEX, args: "0", want: unix.EPERM},

		{name: "acct (the kernel refuses it too)", nr: unix.SYS_ACCT, args: `s("/absent")`, want: unix.EPERM},
		{name: "quotactl", nr: unix.SYS_QUOTACTL, args: "Q_SYNC_USER_QUOTAS, 0, 0, 0", want: unix.EPERM},
		{name: "quotactl_fd", nr: unix.SYS_QUOTACTL_FD, args: "-1, 0, 0, 0", want: unix.EPERM},
		{name: "syslog (the kernel refuses it too where dmesg is restricted)", nr: unix.SYS_SYSLOG, args: "SYSLOG_ACTION_SIZE_BUFFER, 0, 0", want: unix.EPERM},
		{name: "vhangup (the kernel refuses it too)", nr: unix.SYS_VHANGUP, want: unix.EPERM},
		{name: "sethostname (the kernel refuses it too)", nr: unix.SYS_SETHOSTNAME, args: `s("x"), 1`, want: unix.EPERM},
		{name: "setdomainname (the kernel refuses it too)", nr: unix.SYS_SETDOMAINNAME, args: `s("x"), 1`, want: unix.EPERM},
		{name: "nfsservctl", nr: unix.SYS_NFSSERVCTL, args: "0, 0, 0", want: unix.EPERM},
		{name: "lookup_dcookie", nr: unix.SYS_LOOKUP_DCOOKIE, args: "0, 0, 0", want: unix.EPERM},

		{name: "open_by_handle_at", nr: unix.SYS_OPEN_BY_HANDLE_AT, args: "-1, 0, 0", want: unix.EPERM},
		{name: "name_to_handle_at", nr: unix.SYS_NAME_TO_HANDLE_AT, args: `AT_FDCWD, s("/"), buf, ctypes.byref(mount_id), 0`, want: unix.EPERM},
		{name: "fanotify_init", nr: unix.SYS_FANOTIFY_INIT, args: "FAN_REPORT_FID, 0", want: unix.EPERM},

		{name: "kcmp", nr: unix.SYS_KCMP, args: "os.getpid(), os.getpid(), KCMP_FILE, 0, 0", want: unix.EPERM},
		{name: "pidfd_getfd", nr: unix.SYS_PIDFD_GETFD, args: "-1, 0, 0", want: unix.EPERM},
		{name: "process_madvise", nr: unix.SYS_PROCESS_MADVISE, args: "-1, 0, 0, 0, 0", want: unix.EPERM},
		{name: "ptrace PTRACE_TRACEME", nr: unix.SYS_PTRACE, args: "0, 0, 0, 0"},
		{name: "process_vm_readv", nr: unix.SYS_PROCESS_VM_READV, args: "os.getpid(), 0, 0, 0, 0, 0"},

		{name: "mbind", nr: unix.SYS_MBIND, args: "0, 0, 0, 0, 0, 0", want: unix.EPERM},
		{name: "set_mempolicy", nr: unix.SYS_SET_MEMPOLICY, args: "0, 0, 0", want: unix.EPERM},
		{name: "get_mempolicy", nr: unix.SYS_GET_MEMPOLICY, args: "0, 0, 0, 0, 0", want: unix.EPERM},
		{name: "set_mempolicy_home_node", nr: unix.SYS_SET_MEMPOLICY_HOME_NODE, args: "0, 0, 0, 0", want: unix.EPERM},
		{name: "migrate_pages", nr: unix.SYS_MIGRATE_PAGES, args: "0, 0, 0, 0", want: unix.EPERM},
		{name: "move_pages", nr: unix.SYS_MOVE_PAGES, args: "0, 0, 0, 0, 0, 0", want: unix.EPERM},
	}
	// A command gets a namespace from CLONE_NEWUSER alone; the kernel
	// refuses it the others until it is root of a user namespace of its own.
	for _, ns := range []struct {
		name string
		flag uint32
	}{
		{"CLONE_NEWUSER", unix.CLONE_NEWUSER}, {"CLONE_NEWNS", unix.CLONE_NEWNS}, {"CLONE_NEWPID", unix.CLONE_NEWPID},
		{"CLONE_NEWNET", unix.CLONE_NEWNET}, {"CLONE_NEWUTS", unix.CLONE_NEWUTS}, {"CLONE_NEWIPC", unix.CLONE_NEWIPC},
		{"CLONE_NEWCGROUP", unix.CLONE_NEWCGROUP}, {"CLONE_NEWTIME", unix.CLONE_NEWTIME},
	} {
		if ns.flag != unix.CLONE_NEWUSER {
			ns.name += " (the kernel refuses it too)"
		}
		if ns.flag != unix.CLONE_NEWTIME { // part of clone's exit signal
			rows = append(rows, callRow{name: "clone " + ns.name, nr: unix.SYS_CLONE, flags: ns.flag | sigchld, args: "0, 0, 0, 0", want: unix.EPERM})
		}
		rows = append(rows, callRow{name: "unshare " + ns.name, nr: unix.SYS_UNSHARE, flags: ns.flag, want: unix.EPERM})
	}
	for _, p := range []struct {
		name    string
		flags   uint32
		refused bool
	}{
		{"PER_LINUX", perLinux, false}, {"PER_LINUX32", perLinux32, false}, {"UNAME26", uname26, false},
		{"PER_LINUX32|UNAME26", perLinux32 | uname26, false}, {"query", personalityQuery, false},
		{"ADDR_NO_RANDOMIZE", 0x0040000, true}, {"READ_IMPLIES_EXEC", 0x0400000, true},
		{"MMAP_PAGE_ZERO", 0x0100000, true}, {"PER_BSD", 0x0006, true},
	} {
		row := callRow{name: "personality " + p.name, nr: unix.SYS_PERSONALITY, flags: p.flags}
		if p.refused {
			row.want = unix.EPERM
		}
		rows = append(rows, row)
	}
	return append(rows, archCallRows...)
}

// byFlags reports whether the filter judges call nr by its first argument.
func byFlags(nr int) bool {
	return slices.Contains([]int{unix.SYS_CLONE, unix.SYS_UNSHARE, unix.SYS_PERSONALITY}, nr)
}

// callProbe is a Python program that makes each call of its table in a
// child process of its own (so that a call let through changes nothing for
// the next) and prints its name and what it got: an errno's name,
// "allowed", or "died".
const callProbe = `
import ctypes, errno, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD, KEY_SPEC_PROCESS_KEYRING, KEY_SPEC_SESSION_KEYRING, KEYCTL_GET_KEYRING_ID = -100, -2, -3, 0
BPF_MAP_CREATE, UFFD_USER_MODE_ONLY, FAN_REPORT_FID, KCMP_FILE = 0, 1, 0x200, 0
Q_SYNC_USER_QUOTAS, SYSLOG_ACTION_SIZE_BUFFER = 0x800001, 10
buf = ctypes.create_string_buffer(4096)
mount_id = ctypes.c_int()
# A counter of the process's own CPU time, in user space only, which
# perf_event_paranoid 2 allows without a filter.
own_cpu_clock = ctypes.create_string_buffer(struct.pack("<IIQQQQQ", 1, 128, 0, 0, 0, 0, 0x60), 128)

def s(text):
    return ctypes.c_char_p(text.encode())

def call(nr, *args):
    me = os.getpid()
    args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    failed = libc.syscall(ctypes.c_long(nr), *args) == -1
    if os.getpid() != me:
        os._exit(0)  # the child of a clone let through
    return errno.errorcode[ctypes.get_errno()] if failed else "allowed"

def row(name, make):
    r, w = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(r)
        os.write(w, make().encode())
        os._exit(0)
    os.close(w)
    got = os.read(r, 64).decode()
    os.waitpid(child, 0)
    print(name + "\t" + (got or "died"), flush=True)
`

// python is the probe's line that makes the row's call.
func (r callRow) python() string {
	args := r.args
	if byFlags(r.nr) {
		args = strings.Trim(fmt.Sprintf("%d, %s", r.flags, r.args), ", ")
	}
	return fmt.Sprintf("row(%q, lambda: call(%d, %s))\n", r.name, r.nr, args)
}

func TestTheFilterRefusesTheCallsItLists(t *testing.T) {
	rows := callRows()
	prog := filterVM(t)
	t.Run("the program", func(t *testing.T) {
		for _, r := range rows {
			want := uint32(unix.SECCOMP_RET_ALLOW)
			if r.want != 0 {
				want = unix.SECCOMP_RET_ERRNO | uint32(r.want)
			}
			assert.Equal(t, want, prog.answer(t, nativeCalls.audit, r.nr, r.flags), r.name)
		}
	})

	t.Run("in a jail", func(t *testing.T) {
		probe := callProbe
		for _, r := range rows {
			probe += r.python()
		}
		stdout, stderr, _ := run(t, newJail(t), "python3 -c "+shell.Quote(probe))
		got := map[string]string{}
		for _, line := range strings.Split(stdout, "\n") {
			if name, answer, ok := strings.Cut(line, "\t"); ok {
				got[name] = answer
			}
		}
		for _, r := range rows {
			want := "allowed"
			if r.want != 0 {
				want = unix.ErrnoName(r.want)
			}
			assert.Equal(t, want, got[r.name], "%s: %s", r.name, stderr)
		}
	})
}

func TestTheFilterLetsEveryOtherCallThrough(t *testing.T) {
	prog := filterVM(t)
	refused := map[int]bool{}
	for _, r := range callRows() {
		if r.want != 0 && !byFlags(r.nr) {
			refused[r.nr] = true
		}
	}
	// Every number up to the last reviewed, with arguments of zero (which
	// clone, unshare and personality allow).
	for nr := 0; nr <= nativeCalls.last; nr++ {
		if !refused[nr] {
			assert.Equal(t, uint32(unix.SECCOMP_RET_ALLOW), prog.answer(t, nativeCalls.audit, nr, 0), "call %d", nr)
		}
	}
}

func TestTheFilterKnowsItsArchitecture(t *testing.T) {
	prog := filterVM(t)
	nosys := unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	for _, c := range []struct {
		name string
		arch uint32
		nr   int
		want uint32
	}{
		{"another architecture's call", foreignArch, unix.SYS_GETPID, unix.SECCOMP_RET_KILL_PROCESS},
		{"another architecture's call numbered as a refused one", foreignArch, unix.SYS_KEYCTL, unix.SECCOMP_RET_KILL_PROCESS},
		{"x32's numbering, bit 30 set", nativeCalls.audit, 0x40000000 | unix.SYS_UNSHARE, nosys},
		{"the first number past the last reviewed", nativeCalls.audit, nativeCalls.last + 1, nosys},
		{"-1, as a tracer skips a call", nativeCalls.audit, -1, nosys},
	} {
		assert.Equal(t, c.want, prog.answer(t, c.arch, c.nr, 0), c.name)
	}
}

// filterProgram is the jail's filter, decoded from what bwrap reads, run
// by x/net/bpf's virtual machine.
type filterProgram struct{ vm *bpf.VM }

func filterVM(t *testing.T) filterProgram {
	t.Helper()
	filter, err := jailFilter()
	require.NoError(t, err)
	require.Zero(t, len(filter)%8, "whole struct sock_filters")
	var prog []bpf.Instruction
	for b := []byte(filter); len(b) > 0; b = b[8:] {
		raw := bpf.RawInstruction{Op: binary.LittleEndian.Uint16(b), Jt: b[2], Jf: b[3], K: binary.LittleEndian.Uint32(b[4:])}
		prog = append(prog, raw.Disassemble())
	}
	vm, err := bpf.NewVM(prog)
	require.NoError(t, err)
	return filterProgram{vm}
}

// answer runs the program on a call as the kernel would. The virtual
// machine reads words big-endian, as socket filters do, where the kernel
// reads struct seccomp_data in the machine's order: each word is written
// big-endian here, so that both read the same values.
func (p filterProgram) answer(t *testing.T, arch uint32, nr int, arg0 uint32) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[dataNr:], uint32(nr))
	binary.BigEndian.PutUint32(data[dataArch:], arch)
	binary.BigEndian.PutUint32(data[dataArg0:], arg0)
	ret, err := p.vm.Run(data)
	require.NoError(t, err)
	return uint32(ret)
}

// The work commands do keeps working under the filter. Each program is the
// host's, which jails see: one the host lacks is named in a skip.
func TestOrdinaryProgramsRunUnderTheFilter(t *testing.T) {
	for _, c := range []struct {
		name     string
		programs []string
		command  string
		want     string
	}{
		{"sh", []string{"sh"}, `sh -c 'echo $((6*7)) | cat & wait'`, "42\n"},
		{"bash", []string{"bash"}, `bash -c 'a=(x y); set -o pipefail; echo "${#a[@]}" | cat; (exit 3) || echo "sub $?"'`, "2\nsub 3\n"},
		{"python3 threads, subprocess, multiprocessing", []string{"python3"}, `python3 -c '
import multiprocessing, subprocess, threading
def square(x):
    return x * x
if __name__ == "__main__":
    t = threading.Thread(target=print, args=("thread",))
    t.start()
    t.join()
    print(subprocess.run(["echo", "subprocess"], capture_output=True, text=True).stdout.strip())
    with multiprocessing.Pool(2) as pool:
        print(sum(pool.map(square, range(10))))
'`, "thread\nsubprocess\n285\n"},
		{"python3 -m venv and pip", []string{"python3"}, `python3 -m venv /tmp/venv && /tmp/venv/bin/pip --version | cut -d' ' -f1 && python3 -c '
import zipfile
with zipfile.ZipFile("hello-1.0-py3-none-any.whl", "w") as w:
    w.writestr("hello.py", "print(\"hello from a wheel\")\n")
    w.writestr("hello-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: hello\nVersion: 1.0\n")
    w.writestr("hello-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    w.writestr("hello-1.0.dist-info/RECORD", "")
' && /tmp/venv/bin/pip install -q --no-index --no-cache-dir --disable-pip-version-check ./hello-1.0-py3-none-any.whl &&
/tmp/venv/bin/python -c "import hello"`, "pip\nhello from a wheel\n"},
		{"gcc", []string{"gcc"}, `printf '%s\n' '#include <pthread.h>' '#include <stdio.h>' \
'static void *run(void *arg) { puts(arg); return 0; }' \
'int main(void) { pthread_t t; pthread_create(&t, 0, run, "compiled"); return pthread_join(t, 0); }' > /tmp/main.c &&
gcc -pthread -o /tmp/main /tmp/main.c && /tmp/main`, "compiled\n"},
		{"git", []string{"git"}, `git init -q repo && cd repo && echo one > file && git add file &&
git -c user.name=Sandbox -c user.email=sandbox@example.com commit -qm first && git log --format=%s`, "first\n"},
		{"node with a worker thread", []string{"node"}, `node -e '
const { Worker } = require("node:worker_threads");
new Worker("require(\"node:worker_threads\").parentPort.postMessage(6 * 7)", { eval: true }).on("message", (m) => console.log("worker", m));
'`, "worker 42\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, p := range c.programs {
				if _, err := findInJail(p); err != nil {
					t.Skipf("%s is not installed on this host", p)
				}
			}
			stdout, stderr, res := run(t, newJail(t), c.command)
			assert.Equal(t, c.want, stdout, stderr)
			assert.Equal(t, 0, res.ExitCode, stderr)
		})
	}
}
