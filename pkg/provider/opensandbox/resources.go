package opensandbox

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// minMemory is the least memory a sandbox may be given: less leaves no
// room for a shell and Python.
const minMemory = 64 << 20

// The quantities both of the server's runtimes read: its Docker runtime
// (services/helpers.py: parse_nano_cpus, parse_memory_limit) ignores what
// it cannot parse, and Kubernetes refuses what is not a quantity, so only
// forms that both read the same are accepted.
var (
	cpuQuantity    = regexp.MustCompile(`^(?:[0-9]+(?:\.[0-9]+)?|[0-9]+m)$`)
	memoryQuantity = regexp.MustCompile(`^([0-9]+)(Ki|Mi|Gi|Ti|k|M|G|T)?$`)
	memoryUnits    = map[string]int64{"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
		"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}
)

// validateResources checks CPU and memory are quantities the server reads.
func (c *Config) validateResources() []provider.FieldError {
	var errs []provider.FieldError
	if !positiveCPU(c.CPU) {
		errs = append(errs, provider.FieldError{Field: "cpu", Message: "must be a positive number of cores such as 1, 0.5 or 500m"})
	}
	if bytes, ok := memoryBytes(c.Memory); !ok || bytes < minMemory {
		errs = append(errs, provider.FieldError{Field: "memory", Message: "must be an amount of memory of at least 64Mi, such as 2Gi, 512Mi or 4G"})
	}
	return errs
}

func positiveCPU(s string) bool {
	if !cpuQuantity.MatchString(s) {
		return false
	}
	n, err := strconv.ParseFloat(strings.TrimSuffix(s, "m"), 64)
	return err == nil && n > 0
}

func memoryBytes(s string) (int64, bool) {
	m := memoryQuantity.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	unit := memoryUnits[m[2]]
	if err != nil || n > (1<<62)/unit {
		return 0, false
	}
	return n * unit, true
}

// resourceLimits is the create request's resourceLimits for the settings.
func (c *Config) resourceLimits() map[string]string {
	limits := map[string]string{"cpu": c.CPU, "memory": c.Memory}
	if c.GPU > 0 {
		limits["gpu"] = strconv.Itoa(c.GPU)
	}
	return limits
}
