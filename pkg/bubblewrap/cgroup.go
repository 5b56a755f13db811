package bubblewrap

import "errors"

// Cgroup bounds the memory and the processes of every jail placed in it
// (Jail.Cgroup), together: the jails of one sandbox share one, and what one
// command takes, the others cannot. Cgroups makes them.
type Cgroup struct {
	// memory and pids are the group's folders in the hierarchies of those
	// controllers: one folder twice on cgroup v2.
	memory, pids string
}

// CgroupLimits are what a Cgroup bounds; 0 leaves a bound off.
type CgroupLimits struct {
	MemoryMB     int // memory and swap of every process in the group, together
	MaxProcesses int // processes and threads in the group, together
}

// ErrNoCgroups is returned where the server cannot make cgroups with the
// memory and pids controllers: jails are then bounded by rlimits alone.
var ErrNoCgroups = errors.New("no writable cgroups with the memory and pids controllers")
