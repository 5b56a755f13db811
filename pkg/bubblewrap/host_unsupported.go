//go:build !linux

package bubblewrap

// ReadHost knows nothing of a host off Linux, where no jail runs: every
// amount is 0.
func ReadHost(dir string) (Host, error) { return Host{}, nil }

// MemoryLimit knows no cgroup off Linux.
func MemoryLimit() (float64, bool) { return 0, false }
