package local

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Ceilings are the most one instance may ask for on this server, which its
// operator sets, or which ReadCeilings works out from the host. A sandbox
// asking for more is refused when saved; a zero ceiling leaves the
// provider's own bound.
type Ceilings struct {
	MemoryMB  int
	DiskMB    int
	CPU       float64
	Processes int
}

// ceiling is the operator's ceiling on one setting of an instance: a
// variable whose value lies within the provider's own bounds and within
// what the host has. Unset, it is half of what the host has: one instance
// never takes all of it.
type ceiling struct {
	provider.OperatorSetting
	field    string  // the setting it bounds
	unit     string  // what the setting counts, said after a number: "MiB", or ""
	min, max float64 // the provider's own bounds on the setting
	whole    bool    // a whole number; else a number of CPUs, to a hundredth
	has      func(bubblewrap.Host) float64
	hostHas  string // what has says, for a refusal: "the MiB of memory this host gives the server"
}

// The ceilings, with the variables that set them as the catalogue and the
// configuration tables show them.
var (
	memoryCeiling = ceiling{OperatorSetting: provider.OperatorSetting{Env: "AUXILIA_LOCAL_MAX_MEMORY_MB",
		Description: "the most memory one local instance may have (`resources.memory_mb`), in MiB: a sandbox asking for more is refused when saved, and one saved before runs nothing until lowered. Unset: half of what the host gives the server (MemTotal, or its cgroups' limit where lower), at most 65536; set, at most all of it"},
		field: "resources.memory_mb", unit: "MiB", min: 64, max: 65536, whole: true,
		has: func(h bubblewrap.Host) float64 { return float64(h.MemoryMB) }, hostHas: "the MiB of memory this host gives the server"}
	diskCeiling = ceiling{OperatorSetting: provider.OperatorSetting{Env: "AUXILIA_LOCAL_MAX_DISK_MB",
		Description: "the largest disk one local instance may have (`resources.disk_mb`), in MiB: a sandbox asking for more is refused when saved, and one saved before runs nothing until lowered. Unset: half of the size of the data folder's filesystem, at most 1048576; set, at most all of it"},
		field: "resources.disk_mb", unit: "MiB", min: 64, max: 1 << 20, whole: true,
		has: func(h bubblewrap.Host) float64 { return float64(h.DiskMB) }, hostHas: "the MiB of the data folder's filesystem"}
	cpuCeiling = ceiling{OperatorSetting: provider.OperatorSetting{Env: "AUXILIA_LOCAL_MAX_CPU",
		Description: "the most CPUs one local instance may use at once (`resources.cpu`, such as `0.5`), and what one asking for 0 gets: a sandbox asking for more is refused when saved, and one saved before runs nothing until lowered. Unset: half of the CPUs the server may run on (or of its cgroups' quota), at most 64; set, at most all of them"},
		field: "resources.cpu", min: 0.01, max: 64,
		has: func(h bubblewrap.Host) float64 { return h.CPU }, hostHas: "the CPUs this server may run on"}
	processesCeiling = ceiling{OperatorSetting: provider.OperatorSetting{Env: "AUXILIA_LOCAL_MAX_PROCESSES",
		Description: "the most processes one local instance may run at once (`max_processes`): a sandbox asking for more is refused when saved, and one saved before runs nothing until lowered. Unset: half of what the host makes (the lower of pid_max and threads-max, or the server's cgroups' limit), at most 4096; set, at most all of it"},
		field: "max_processes", min: 8, max: 4096, whole: true,
		has: func(h bubblewrap.Host) float64 { return float64(h.Processes) }, hostHas: "the processes this host makes"}
)

// bounds says, in a setting's help, that the ceiling bounds it.
func (c ceiling) bounds() string {
	return "at most this server's ceiling, " + c.Env + " (the maximum its catalogue gives)"
}

// ceilingSettings are the ceilings' variables.
func ceilingSettings() []provider.OperatorSetting {
	var out []provider.OperatorSetting
	for _, c := range []ceiling{memoryCeiling, diskCeiling, cpuCeiling, processesCeiling} {
		s := c.OperatorSetting
		s.Check = func(value string) error {
			_, err := c.parse(value)
			return err
		}
		out = append(out, s)
	}
	return out
}

// parse reads a value of the ceiling's variable, within the provider's own
// bounds; its error completes "ENV must …".
func (c ceiling) parse(value string) (float64, error) {
	what := "a number"
	v, err := strconv.ParseFloat(value, 64)
	if c.whole {
		what = "a whole number"
		var n int
		n, err = strconv.Atoi(value)
		v = float64(n)
	}
	if err != nil || !(v >= c.min && v <= c.max) { // NaN too
		return 0, fmt.Errorf("must be %s from %s to %s, not %q", what, provider.Grouped(c.min), provider.Grouped(c.max), value)
	}
	return v, nil
}

// on is the ceiling on host h: the operator's value (checked already by
// its setting), which may not exceed what the host has, or half of that.
// A host that says nothing (off Linux, where no instance runs) leaves the
// provider's own bound.
func (c ceiling) on(values provider.OperatorValues, h bubblewrap.Host) (float64, error) {
	has := c.has(h)
	if value := values[c.Env]; value != "" {
		v, err := c.parse(value)
		if err == nil && has > 0 && v > has {
			err = fmt.Errorf("must be at most %s, %s, not %s", provider.Grouped(has), c.hostHas, value)
		}
		if err != nil {
			return 0, fmt.Errorf("%s %w", c.Env, err)
		}
		return v, nil
	}
	if has == 0 {
		return c.max, nil
	}
	half := math.Floor(has/2*100) / 100
	if c.whole {
		half = math.Floor(has / 2)
	}
	return min(max(half, c.min), c.max), nil
}

// ReadCeilings works out the ceilings from the operator's values (read and
// checked by ReadOperatorSettings) and from what the host gives the
// server, the disk being that of the data folder dataDir. A value above
// what the host has is refused, naming its variable, with every other.
func ReadCeilings(values provider.OperatorValues, dataDir string) (Ceilings, error) {
	h, err := bubblewrap.ReadHost(dataDir)
	if err != nil {
		return Ceilings{}, fmt.Errorf("the local provider's ceilings: %w", err)
	}
	return ceilingsOn(values, h)
}

func ceilingsOn(values provider.OperatorValues, h bubblewrap.Host) (Ceilings, error) {
	var errs []error
	on := func(c ceiling) float64 {
		v, err := c.on(values, h)
		errs = append(errs, err)
		return v
	}
	out := Ceilings{MemoryMB: int(on(memoryCeiling)), DiskMB: int(on(diskCeiling)), CPU: on(cpuCeiling),
		Processes: int(on(processesCeiling))}
	return out, errors.Join(errs...)
}

// list is the ceilings set, as the catalogue and validation take them.
func (cs Ceilings) list() []provider.Ceiling {
	var out []provider.Ceiling
	for _, c := range []struct {
		ceiling
		value float64
	}{
		{memoryCeiling, float64(cs.MemoryMB)}, {diskCeiling, float64(cs.DiskMB)},
		{cpuCeiling, cs.CPU}, {processesCeiling, float64(cs.Processes)},
	} {
		if c.value > 0 {
			out = append(out, provider.Ceiling{Field: c.field, Max: c.value, Unit: c.unit, Env: c.Env})
		}
	}
	return out
}

// aboveCeilings refuses op for a sandbox saved before its operator lowered
// a ceiling below its settings: its instances would get more than this
// server allows.
func (c *Config) aboveCeilings(op string) error {
	errs := provider.CheckCeilings(c.ceilings.list(), c)
	if len(errs) == 0 {
		return nil
	}
	var words []string
	for _, e := range errs {
		words = append(words, e.Field+" "+e.Message)
	}
	return provider.Errorf(provider.ErrInvalidConfig, providerName, op,
		"%s, lower than when the sandbox was saved: lower it in the sandbox's settings", strings.Join(words, "; "))
}

// lower is v, or the ceiling where it is set and lower.
func lower(v, ceiling int) int {
	if ceiling > 0 && ceiling < v {
		return ceiling
	}
	return v
}
