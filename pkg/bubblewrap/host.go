package bubblewrap

// Host is what this host gives the server, and so its jails: each amount
// is the host's own, or the bound the server's own cgroups set where that
// is lower (a server in a container gets its container's).
type Host struct {
	MemoryMB int // MemTotal, or the cgroups' memory limit
	DiskMB   int // the size of the filesystem holding the folder asked about
	// CPU is the number of CPUs the server may run on, or the cgroups' CPU
	// quota in CPUs (such as 1.5).
	CPU float64
	// Processes is the most processes and threads the kernel makes (the
	// lower of pid_max and threads-max), or the cgroups' pids limit.
	Processes int
}
