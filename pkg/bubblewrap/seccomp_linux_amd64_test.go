package bubblewrap

import "golang.org/x/sys/unix"

// foreignArch is the architecture of 32-bit x86 programs, and of int 0x80
// in a 64-bit one.
const foreignArch = unix.AUDIT_ARCH_I386

// archCallRows are x86-64's own refused calls (see callRow).
var archCallRows = []callRow{
	{name: "iopl", nr: unix.SYS_IOPL, args: "5", want: unix.EPERM},
	{name: "ioperm", nr: unix.SYS_IOPERM, args: "0, 0x100000, 1", want: unix.EPERM},
	{name: "uselib", nr: unix.SYS_USELIB, args: `s("/absent")`, want: unix.EPERM},
	{name: "ustat", nr: unix.SYS_USTAT, args: "0, buf", want: unix.EPERM},
	{name: "sysfs", nr: unix.SYS_SYSFS, args: "3", want: unix.EPERM},
	{name: "_sysctl", nr: unix.SYS__SYSCTL, args: "0", want: unix.EPERM},
}
