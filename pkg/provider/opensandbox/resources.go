package opensandbox

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// The quantities older versions stored in cpu and memory: those both of
// the server's runtimes read alike (services/helpers.py: parse_nano_cpus,
// parse_memory_limit; Kubernetes quantities).
var (
	cpuQuantity    = regexp.MustCompile(`^(?:[0-9]+(?:\.[0-9]+)?|[0-9]+m)$`)
	memoryQuantity = regexp.MustCompile(`^([0-9]+)(Ki|Mi|Gi|Ti|k|M|G|T)?$`)
	memoryUnits    = map[string]int64{"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
		"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}
)

// Upgrade reads what older versions stored: cpu and memory as Kubernetes
// quantities beside the other keys, now resources.cpu (cores) and
// resources.memory_mb (MiB, rounded up). A quantity it cannot read stays
// where it was, for decoding to name.
func (c *Config) Upgrade(values map[string]json.RawMessage) {
	upgrade(values, "cpu", "cpu", func(s string) (any, bool) { return cpuCores(s) })
	upgrade(values, "memory", "memory_mb", func(s string) (any, bool) {
		bytes, ok := memoryBytes(s)
		return (bytes + 1<<20 - 1) >> 20, ok
	})
}

// upgrade moves the quantity at key old into resources.key, converted; a
// null goes as it is (the default).
func upgrade(values map[string]json.RawMessage, old, key string, convert func(string) (any, bool)) {
	raw, ok := values[old]
	if !ok {
		return
	}
	var quantity string
	if string(raw) != "null" {
		if json.Unmarshal(raw, &quantity) != nil {
			return
		}
		v, ok := convert(quantity)
		if !ok {
			return
		}
		values[old], _ = json.Marshal(v)
	}
	provider.MoveKey(values, old, "resources", key)
}

func cpuCores(s string) (float64, bool) {
	if !cpuQuantity.MatchString(s) {
		return 0, false
	}
	n, err := strconv.ParseFloat(strings.TrimSuffix(s, "m"), 64)
	if strings.HasSuffix(s, "m") {
		n /= 1000
	}
	return n, err == nil
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

// resourceLimits is the create request's resourceLimits for the settings:
// CPU in millicores (rounded to the nearest) unless whole, memory in Gi
// when whole, else in Mi.
func (c *Config) resourceLimits() map[string]string {
	cpu, memory := c.Resources.CPU, c.Resources.MemoryMB
	if cpu == 0 {
		cpu = defaultCPU
	}
	if memory == 0 {
		memory = defaultMemoryMB
	}
	milli := int64(math.Round(cpu * 1000))
	cores := strconv.FormatInt(milli, 10) + "m"
	if milli%1000 == 0 {
		cores = strconv.FormatInt(milli/1000, 10)
	}
	mem := strconv.Itoa(memory) + "Mi"
	if memory%1024 == 0 {
		mem = strconv.Itoa(memory/1024) + "Gi"
	}
	limits := map[string]string{"cpu": cores, "memory": mem}
	if c.GPU > 0 {
		limits["gpu"] = strconv.Itoa(c.GPU)
	}
	return limits
}

// networkPolicy is the create request's networkPolicy, nil when the
// sandbox may connect anywhere (as one without a policy does). Deny rules
// go first: the egress sidecar takes a domain's first matching rule
// (components/egress/pkg/policy/policy.go).
func (c *Config) networkPolicy() *networkPolicy {
	n := c.Network
	if n.Default == provider.EgressAllow && len(n.Deny) == 0 {
		return nil
	}
	p := &networkPolicy{DefaultAction: n.Default, Egress: []networkRule{}}
	for _, t := range n.Deny {
		p.Egress = append(p.Egress, networkRule{Action: provider.EgressDeny, Target: strings.ToLower(t)})
	}
	for _, t := range n.Allow {
		p.Egress = append(p.Egress, networkRule{Action: provider.EgressAllow, Target: strings.ToLower(t)})
	}
	return p
}
