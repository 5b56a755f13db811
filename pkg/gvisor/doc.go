// Package gvisor finds out whether this host can run sandboxes under gVisor
// (runsc): a second kernel, in user space, between a sandbox's commands and
// the host's. bubblewrap shares the host's kernel with every command, so one
// kernel bug reachable through a permitted system call is a way out; under
// gVisor a command's system calls reach gVisor's kernel (the Sentry), which
// itself uses a small, filtered set of the host's.
//
// Detect runs a real, tiny sandbox with the operator's platform (how the
// Sentry intercepts system calls: ptrace, systrap or kvm) and says why not
// when it fails, in runsc's own words: a binary that is installed is no
// proof that it runs here (a 2022 build knows no systrap; kvm needs
// /dev/kvm; most of it needs root).
package gvisor
