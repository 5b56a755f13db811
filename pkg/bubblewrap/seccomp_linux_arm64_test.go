package bubblewrap

import "golang.org/x/sys/unix"

// foreignArch is the architecture of 32-bit Arm programs.
const foreignArch = unix.AUDIT_ARCH_ARM

// archCallRows are arm64's own refused calls: none.
var archCallRows []callRow
