package bubblewrap

import "golang.org/x/sys/unix"

// nativeCalls are arm64's, which has none of x86's old calls to refuse.
var nativeCalls = callTable{
	audit: unix.AUDIT_ARCH_AARCH64,
	last:  unix.SYS_RSEQ_SLICE_YIELD,
}
