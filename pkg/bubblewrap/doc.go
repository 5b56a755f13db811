// Package bubblewrap runs shell commands in bubblewrap (bwrap) jails: a
// read-only view of the host's system, one read-write folder, private /tmp,
// /dev and /proc, a network namespace of its own (with a way to the internet
// only when asked for), and resource limits that end a runaway command
// without harming the process that started it.
//
// # Processes
//
// Every jail has its own PID namespace, whose first process is bwrap's init.
// When the command exits, or its timeout passes, or its context ends, that
// init dies and the kernel kills every process left in the namespace,
// background ones included; Run returns only once they are all gone.
//
// A jail dies with its server, even one killed with SIGKILL, at every stage:
//
//   - bwrap, and every host program that sets the jail up, gets SIGKILL when
//     the thread that started it ends (Run keeps that thread until the jail
//     is over), and bwrap passes that on to the jail's init
//     (--die-with-parent), which takes the namespace down with it.
//   - bwrap never waits for the server while it holds the jail's first
//     process: were bwrap killed then, that process would wait for ever, out
//     of anyone's reach. So a server running as root does not map the jail's
//     user namespace through bwrap's --userns-block-fd; it makes and maps
//     the namespace beforehand and gives it to bwrap (see below).
//   - The command line starts with a gate: a shell that tells the server
//     the jail is set up, then waits for the word to start the command (the
//     server gives it once the jail's network is ready). A server that dies
//     before leaves the gate reading nothing, and the command never starts:
//     bwrap's own --block-fd would start it on its own.
//   - The gate runs the command with descriptors 0, 1 and 2 only: bwrap
//     leaves its pipes and the namespace it was given open.
//
// What remains is bwrap's own: for the microseconds between making the
// jail's first process and letting it go on, and between that process
// starting the command and asking to die with bwrap, a server killed at
// that very moment would leave it behind.
//
// Available tries a jail in a folder of the temporary folder named after
// the server's process (its pid and start time): a server that crashed
// leaves it behind, and the next probe on the host removes the folders of
// processes that are gone, never those of a server that runs.
//
// # Resource limits
//
// Limits are rlimits, which every process of the command inherits. Inside
// the jail, past the gate, the command line runs prlimit (util-linux, from
// the host's /usr), which lowers its own limits and then runs /bin/sh; without
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
// Cgroups makes them; the rlimits stay under them. A Cgroup also bounds
// their CPU time together, with a quota, where the cpu controller is there
// too; no rlimit can bound CPU time as a rate, so without it nothing does.
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
// A server that does not run as root runs commands as its own user. bwrap
// then makes two user namespaces: an outer one where the server's user is
// root, in which it sets the jail up and which owns the jail's other
// namespaces, and an inner one where that user is itself and the command
// runs, without capabilities, so with no say over the outer's namespaces.
//
// A server running as root never runs commands as root: root is exempt from
// RLIMIT_NPROC (a fork bomb would be unbounded) and owns the host's files.
// Instead bwrap starts as an unprivileged user (Jail.UID and Jail.GID, by
// default 65534, nobody): the local provider and the Cloud Run gateway give
// each instance one of its own from a run of ids (IDs), so that no two
// share files or the kernel's accounting per user. unshare, run as that user, makes the jail's user
// namespace, and Run writes its maps, mapping root too, so that bwrap can
// reach Root through root-only folders such as the server's data folder
// while it sets the jail up; bwrap joins it (--userns). The command then runs
// as that user with no capabilities, on nosuid mounts under no_new_privs, so
// the mapped root is out of its reach. Files in Root that the command must
// change have to belong to that user: Jail.User says which it is.
//
// # System calls
//
// Every jail runs under a seccomp filter: bwrap reads it from a pipe, as it
// reads the options (--seccomp), and applies it to the jail's first process
// and to the gate right before it runs them, so to the command and all it
// starts. No jail runs without it: Run refuses to start one on an
// architecture the filter does not know (it knows amd64 and arm64).
//
// The filter follows the default profiles of the container runtimes
// (Docker's, containerd's, Podman's) for a container without capabilities,
// written as the calls it refuses rather than those it allows: what no
// ordinary program needs, and what would open kernel code to the command
// that a process without capabilities otherwise never reaches. The calls
// get EPERM:
//
//   - clone and unshare with a CLONE_NEW* flag, and setns: in a user
//     namespace of its own the command would be root with every
//     capability, and reach the kernel's mount and nf_tables code. clone3
//     keeps its flags in memory, out of the filter's sight: it gets ENOSYS,
//     and the C library falls back to clone.
//   - mounts: mount, umount2, pivot_root, chroot and the new mount API.
//   - io_uring, whose requests are system calls the filter never sees.
//   - the kernel's key store (add_key, keyctl, request_key): keyrings are
//     not namespaced, and the jails of one user would share its quota.
//   - bpf, perf_event_open and userfaultfd.
//   - the host's administration: kexec, modules, swap, reboot, setting the
//     clock, accounting, quotas, the kernel log, host names.
//   - files by handle (open_by_handle_at reaches files past the jail's
//     mounts), fanotify, kcmp, pidfd_getfd, process_madvise, and where
//     memory lives among NUMA nodes.
//   - personality, but for the values the runtimes allow (Linux, a 32-bit
//     uname, UNAME26, the query): address-space randomization stays on.
//
// ptrace stays allowed, as the runtimes allow it since Linux 4.8, where a
// tracer can no longer change a call after the filter has seen it (jails
// need 5.3 anyway, for pidfd_open).
//
// A list of refusals would let through the calls later kernels add, so the
// filter answers ENOSYS, as the kernel does for a call it does not have, to
// every number past the last one reviewed; on x86-64 that covers the x32
// calls too, whose numbers have bit 30 set. Before all that, the filter
// checks the call's architecture: a 32-bit call (int 0x80 in an x86-64
// program, or a 32-bit Arm program on arm64) is numbered otherwise and
// would slip past the lists, so it kills the process (SIGSYS). 32-bit
// programs do not run in a jail.
//
// The filter is classic BPF assembled in Go (golang.org/x/net/bpf), with
// golang.org/x/sys's call numbers, once per process: libseccomp's Go
// binding would need cgo and libseccomp's headers on every machine that
// builds the server, for a program of some 150 instructions. It compares
// the call with each refused one in turn; the kernel (5.11 and later) runs
// it once for each call it allows whatever the arguments and remembers
// that, so ordinary calls pay nothing for the length of the list. On a
// shared two-CPU machine, jails started as fast with the filter as without
// it, within the machine's noise (BenchmarkJailStart).
//
// # Network
//
// Every jail has a network namespace of its own. Without Jail.Network it
// holds only its own loopback. With it, slirp4netns gives the jail an
// interface (10.0.2.100) and a user-mode TCP/IP stack on the host that opens
// the connections the jail asks for; the jail's /etc/resolv.conf names
// slirp4netns's resolver (10.0.2.3), which asks the host's. Before the
// command starts, nft (nftables) installs egress rules in the jail's
// namespace that refuse at once every packet to the host's own addresses
// (read as the jail starts), to loopback, to slirp4netns's way to the host
// (10.0.2.2, which --disable-host-loopback closes too), to private, shared
// and link-local ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7,
// 169.254/16, fe80::/10, so cloud metadata too), to 0.0.0.0/8, multicast and
// broadcast. That wall stands for every jail with network; Jail.Egress then
// narrows the rest: its deny list is refused, and with DenyByDefault only its
// allow list is let through (otherwise the rest of the internet is
// reachable: pip works). Its entries are addresses, CIDR networks or domains,
// which the host's resolver turns into addresses as the jail starts: a
// domain whose addresses change later keeps those it had then. nft runs
// through nsenter as root of the user namespace that owns the jail's network
// namespace (the server's user: see above); the command is root of no
// namespace that owns it, so it cannot change the rules, nor its routes or
// interfaces.
//
// slirp4netns runs as the jail's user, confined (--enable-sandbox: a mount
// namespace with only /etc and /run, no capabilities; --enable-seccomp). It
// needs to be root of a user namespace to make that sandbox: a helper
// (nsenter, unshare) makes one inside the jail's, in which the jail's user is
// root, and slirp4netns joins it: it never runs as host root. It ends when
// the jail does (--exit-fd), or with the server. It needs /dev/net/tun; a
// server that does not run as root needs it open to its user, as udev makes
// it (0666). A jail with network on a host without slirp4netns, nftables or
// the device fails with an error that says so, and so does Available.
//
// slirp4netns rather than pasta (passt), which would do as well: its options
// say exactly what is needed (a ready and an exit descriptor, a sandbox, a
// seccomp filter, no way to the host's loopback); it gives the jail a
// network of its own addresses, where pasta copies the host's addresses and
// routes into the jail by default; and Debian 12's pasta is an early
// snapshot. Both open a TUN device in the jail's namespace; neither filters
// destinations, hence nftables.
//
// Connecting costs time: nft and slirp4netns start side by side once bwrap
// has set the jail up, and slirp4netns ends after the command. On a shared
// two-CPU machine an empty command took about 15 ms in a jail without
// network and about 55 ms in one with network (BenchmarkJailStart).
package bubblewrap
