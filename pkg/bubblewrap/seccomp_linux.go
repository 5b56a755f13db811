//go:build amd64 || arm64

package bubblewrap

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// callTable is what the filter knows of the system calls of the
// architecture it runs on.
type callTable struct {
	audit uint32 // seccomp_data.arch of the architecture's native calls (AUDIT_ARCH_*)
	// last is the highest call number judged for the filter: a call
	// numbered past it gets ENOSYS, until it is judged too and last raised.
	last    int
	refused []int // calls refused on this architecture alone, besides refusedCalls
}

// refusedCalls are the calls every jail refuses with EPERM, on every
// architecture: those the container runtimes' default profiles keep from a
// container without capabilities, io_uring's and the key store's among
// them. The kernel refuses most of them to a command anyway, which has no
// capabilities; the filter keeps their code out of its reach as well.
var refusedCalls = []int{
	// Entering another namespace (making one is clone's and unshare's, by
	// their flags).
	unix.SYS_SETNS,
	// Mounts, the new mount API, changing root.
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT,
	unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK,
	unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_OPEN_TREE_ATTR, unix.SYS_MOUNT_SETATTR,
	// io_uring, whose requests are system calls the filter never sees.
	unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
	// The kernel's key store: keyrings are not namespaced, and every jail
	// of one user shares that user's quota of keys.
	unix.SYS_ADD_KEY, unix.SYS_KEYCTL, unix.SYS_REQUEST_KEY,
	// Kernel code that unprivileged programs have used to break out.
	unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
	// The machine's kernel, modules, swap, power and clock.
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT,
	unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX,
	// The rest of a host administrator's calls.
	unix.SYS_ACCT, unix.SYS_QUOTACTL, unix.SYS_QUOTACTL_FD, unix.SYS_SYSLOG, unix.SYS_VHANGUP,
	unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME, unix.SYS_NFSSERVCTL, unix.SYS_LOOKUP_DCOOKIE,
	// Files by handle, which open_by_handle_at takes past the jail's
	// mounts, and whole-filesystem watches.
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_FANOTIFY_INIT,
	// Other processes' files and memory beyond what ptrace gives, and
	// comparisons of kernel pointers.
	unix.SYS_KCMP, unix.SYS_PIDFD_GETFD, unix.SYS_PROCESS_MADVISE,
	// Where memory lives among the host's NUMA nodes.
	unix.SYS_MBIND, unix.SYS_SET_MEMPOLICY, unix.SYS_GET_MEMPOLICY, unix.SYS_SET_MEMPOLICY_HOME_NODE,
	unix.SYS_MIGRATE_PAGES, unix.SYS_MOVE_PAGES,
}

// cloneNamespaces are the flags with which clone makes namespaces: clone
// with any of them is refused. unshareNamespaces are unshare's, which also
// makes time namespaces (in clone that bit is part of the exit signal).
const (
	cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
		unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP
	unshareNamespaces = cloneNamespaces | unix.CLONE_NEWTIME
)

// Personalities (linux/personality.h).
const (
	perLinux         = 0x0000
	perLinux32       = 0x0008    // uname reports a 32-bit machine (setarch linux32)
	uname26          = 0x0020000 // uname reports 2.6.x
	personalityQuery = 0xffffffff
)

// personalities are the only arguments of personality the filter lets
// through, as the runtimes' profiles do: the others turn off address-space
// randomization, make data executable or map page zero.
var personalities = []uint32{perLinux, perLinux32, uname26, perLinux32 | uname26, personalityQuery}

// Offsets in struct seccomp_data, the filter's input. An argument is 64
// bits wide; the filter reads the low half, which is first on the
// little-endian machines it is built for, and is all that clone, unshare and
// personality read of their first argument.
const (
	dataNr   = 0
	dataArch = 4
	dataArg0 = 16
)

// jailFilter is the program every jail runs under, built once.
var jailFilter = sync.OnceValues(func() (string, error) { return buildFilter(nativeCalls) })

// buildFilter compiles the filter of t's architecture, as bwrap's --seccomp
// reads it: struct sock_filter {u16 code; u8 jt; u8 jf; u32 k} one after
// the other, in the machine's (little-endian) byte order.
func buildFilter(t callTable) (string, error) {
	prog := []bpf.Instruction{
		// Another architecture's calls (32-bit x86's int 0x80, 32-bit Arm)
		// are numbered otherwise: they end the process.
		bpf.LoadAbsolute{Off: dataArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: t.audit, SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS},
		// A number past the last reviewed, as the kernel says of calls it
		// does not have: calls added to later kernels, and x32's, whose
		// numbers have bit 30 set.
		bpf.LoadAbsolute{Off: dataNr, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpGreaterThan, Val: uint32(t.last), SkipFalse: 1},
		fail(unix.ENOSYS),
	}
	// clone3 passes its flags in memory, out of the filter's sight: ENOSYS
	// makes the C library fall back to clone, whose flags it sees.
	prog = append(prog, when(unix.SYS_CLONE3, fail(unix.ENOSYS))...)
	for _, nr := range slices.Concat(refusedCalls, t.refused) {
		prog = append(prog, when(nr, fail(unix.EPERM))...)
	}
	prog = append(prog, when(unix.SYS_CLONE, refuseFlags(cloneNamespaces)...)...)
	prog = append(prog, when(unix.SYS_UNSHARE, refuseFlags(unshareNamespaces)...)...)
	prog = append(prog, when(unix.SYS_PERSONALITY, allowOnly(personalities)...)...)
	prog = append(prog, allow)

	raw, err := bpf.Assemble(prog)
	if err != nil {
		return "", fmt.Errorf("the system-call filter does not assemble: %w", err)
	}
	b := make([]byte, 0, 8*len(raw))
	for _, ins := range raw {
		b = binary.LittleEndian.AppendUint16(b, ins.Op)
		b = append(b, ins.Jt, ins.Jf)
		b = binary.LittleEndian.AppendUint32(b, ins.K)
	}
	return string(b), nil
}

var allow = bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}

// fail returns errno from the call without running it.
func fail(errno unix.Errno) bpf.Instruction {
	return bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(errno)}
}

// when runs body for call nr, whose number is in A. Every path of body
// returns, so what follows sees the number in A still.
func when(nr int, body ...bpf.Instruction) []bpf.Instruction {
	return append([]bpf.Instruction{bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(nr), SkipFalse: uint8(len(body))}}, body...)
}

// refuseFlags refuses the call when its first argument has any of flags.
func refuseFlags(flags uint32) []bpf.Instruction {
	return []bpf.Instruction{
		bpf.LoadAbsolute{Off: dataArg0, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: flags, SkipFalse: 1},
		fail(unix.EPERM),
		allow,
	}
}

// allowOnly refuses the call unless its first argument is one of values.
func allowOnly(values []uint32) []bpf.Instruction {
	body := []bpf.Instruction{bpf.LoadAbsolute{Off: dataArg0, Size: 4}}
	for i, v := range values {
		// Past the other values and the refusal, to allow.
		body = append(body, bpf.JumpIf{Cond: bpf.JumpEqual, Val: v, SkipTrue: uint8(len(values) - i)})
	}
	return append(body, fail(unix.EPERM), allow)
}
