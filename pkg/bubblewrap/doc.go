// Package bubblewrap runs shell commands in bubblewrap (bwrap) jails: a
// read-only view of the host's system, one read-write folder, private /tmp,
// /dev and /proc, no network unless asked for, and resource limits that end a
// runaway command without harming the process that started it.
//
// # Processes
//
// Every jail has its own PID namespace, whose first process is bwrap's init.
// When the command exits, or its timeout passes, or its context ends, that
// init dies and the kernel kills every process left in the namespace,
// background ones included; Run returns only once they are all gone.
//
// # Resource limits
//
// Limits are rlimits, which every process of the command inherits. Inside
// the jail, the command line starts with prlimit (util-linux, from the host's
// /usr), which lowers its own limits and then runs /bin/sh; without
// capabilities, nothing in the jail can raise them again. Setting them from
// outside with prlimit(2) would need CAP_SYS_RESOURCE when the command runs
// as another user, which containers usually drop.
//
//   - MaxProcesses is RLIMIT_NPROC. The kernel counts it per user within a
//     user namespace, and each jail has a fresh one, so it counts the jail's
//     own processes (and threads), not the server's nor another jail's. This
//     holds because prlimit runs after bwrap made the namespace: set on bwrap
//     itself, it would cap the sum of every process of the server's user.
//   - MemoryMB is RLIMIT_DATA, the private writable memory of one process,
//     and the size of the jail's /tmp and /dev/shm. RLIMIT_AS is not used: it
//     also counts address space reserved and never used, which Go, the JVM
//     and V8 reserve by the gigabyte, so they would not start.
//   - MaxFileMB is RLIMIT_FSIZE: a write past it fails (SIGXFSZ or EFBIG).
//
// Rlimits work wherever bwrap does, but bound each process (or each jail)
// alone: a jail may use up to MaxProcesses × MemoryMB, plus its /tmp and
// /dev/shm. A Cgroup (Jail.Cgroup) bounds the memory and the processes of
// every jail put in it together, and so whatever runs for one sandbox; it
// needs a writable cgroup hierarchy (v1's memory and pids, which take root,
// or a delegated v2), which a typical non-root container does not have.
// Cgroups makes them; the rlimits stay under them.
//
// # Disks
//
// A jail's Root is a host folder: what the command writes takes the host's
// disk, up to MaxFileMB per file. A Disk bounds the folder as a whole: an
// ext4 image file of a fixed size, mounted through a loop device at the
// folder while in use, which also keeps the host path of the folder out of
// the jail's mount table. Mounting takes root.
//
// # Which user runs the command
//
// A server that does not run as root runs commands as its own user, mapped
// to itself in the jail's user namespace. A server running as root never
// runs commands as root: root is exempt from RLIMIT_NPROC (a fork bomb would
// be unbounded) and owns the host's files. Instead bwrap starts as an
// unprivileged user (Jail.UID and Jail.GID, by default 65534, nobody), and
// Run writes the jail's user namespace maps itself, mapping root too, so that
// bwrap can reach Root through root-only folders such as the server's data
// folder while it sets the jail up. The command then runs as that user with
// no capabilities, on nosuid mounts under no_new_privs, so the mapped root is
// out of its reach. Files in Root that the command must change have to
// belong to that user: Jail.User says which it is.
package bubblewrap
