package bubblewrap

import "errors"

// Cgroup bounds the memory, the processes and the CPU time of every jail
// placed in it (Jail.Cgroup), together: the jails of one sandbox share one,
// and what one command takes, the others cannot. Cgroups makes them.
type Cgroup struct {
	// memory, pids and cpu are the group's folders in the hierarchies of
	// those controllers: one folder for all on cgroup v2. cpu is "" where
	// the server has no cpu controller it may write.
	memory, pids, cpu string
}

// CgroupLimits are what a Cgroup bounds; 0 leaves a bound off.
type CgroupLimits struct {
	MemoryMB     int // memory and swap of every process in the group, together
	MaxProcesses int // processes and threads in the group, together
	// CPU is how many CPUs' worth of time the group's processes may take
	// together, such as 0.5 (a quota of 50 ms in every 100 ms period); at
	// least 0.01. Where the server's cgroups have no cpu controller, it
	// is left off.
	CPU float64
}

// ErrNoCgroups is returned where the server cannot make cgroups with the
// memory and pids controllers: jails are then bounded by rlimits alone.
var ErrNoCgroups = errors.New("no writable cgroups with the memory and pids controllers")
