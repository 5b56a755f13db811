package bubblewrap

import "golang.org/x/sys/unix"

// nativeCalls are x86-64's. Its own refused calls are port I/O, and old
// calls that the runtimes' profiles keep out too.
var nativeCalls = callTable{
	audit:   unix.AUDIT_ARCH_X86_64,
	last:    unix.SYS_RSEQ_SLICE_YIELD,
	refused: []int{unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_USELIB, unix.SYS_USTAT, unix.SYS_SYSFS, unix.SYS__SYSCTL},
}
