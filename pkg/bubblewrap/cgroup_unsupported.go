//go:build !linux

package bubblewrap

// Cgroups are Linux's: there are none here.
type Cgroups struct{}

// OpenCgroups reports that there are no cgroups off Linux.
func OpenCgroups(scope string) (*Cgroups, error) { return nil, ErrNoCgroups }

// Join makes nothing: there are no cgroups off Linux.
func (cs *Cgroups) Join(name string, limits CgroupLimits) (*Cgroup, func(), error) {
	return nil, nil, ErrNoCgroups
}

// Sweep has nothing to remove off Linux.
func (cs *Cgroups) Sweep() error { return nil }

// Groups lists nothing off Linux.
func (cs *Cgroups) Groups() ([]string, error) { return nil, nil }

// Freeze has nothing to stop off Linux.
func (cs *Cgroups) Freeze(name string, frozen bool) error { return nil }
