package main

import (
	"log/slog"
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// serverGCPercent is the server's GOGC unless the environment sets one. Its
// live heap is small (tens of MiB) and a loaded server allocates some KiB a
// request: at Go's default of 100 it collects several times a second, and
// every collection slows the requests that run while it marks. At 400 it
// collects about a quarter as often, for a heap of up to five times the
// live one; where a cgroup limits the server's memory, memoryShare of that
// limit bounds the heap all the same.
const serverGCPercent = 400

// memoryShare is the part of its cgroup's memory limit the server's heap
// may take before the collector works harder to stay under it: the rest is
// for goroutine stacks, the runtime's own and what else the kernel counts.
const memoryShare = 0.9

// gcSettings is how the server's garbage collector runs: percent is its
// GOGC and memoryLimit its soft limit in bytes; 0 leaves the runtime's
// (the environment's GOGC or GOMEMLIMIT, or Go's defaults).
type gcSettings struct {
	percent     int
	memoryLimit int64
}

// planGC picks the server's settings: serverGCPercent unless GOGC is set,
// and memoryShare of its cgroup's memory limit (cgroupLimit, in bytes)
// unless GOMEMLIMIT is.
func planGC(getenv func(string) string, cgroupLimit func() (float64, bool)) gcSettings {
	var s gcSettings
	if getenv("GOGC") == "" {
		s.percent = serverGCPercent
	}
	if getenv("GOMEMLIMIT") == "" {
		if limit, ok := cgroupLimit(); ok {
			s.memoryLimit = int64(limit * memoryShare)
		}
	}
	return s
}

// apply sets s on the runtime and logs what the collector now runs with.
func (s gcSettings) apply(log *slog.Logger) {
	if s.percent != 0 {
		debug.SetGCPercent(s.percent)
	}
	if s.memoryLimit != 0 {
		debug.SetMemoryLimit(s.memoryLimit)
	}
	now := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(now)
	attrs := []any{"gogc", now[0].Value.Uint64()}
	if limit := now[1].Value.Uint64(); limit != math.MaxInt64 {
		attrs = append(attrs, "memory_limit_mib", limit>>20)
	}
	log.Info("garbage collector", attrs...)
}
