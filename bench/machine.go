package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// machine describes where the figures were taken: they mean little without it.
type machine struct {
	CPU      string
	CPUs     int
	Memory   string
	Kernel   string
	Go       string
	Postgres string
	LoadAvg  string // the 1, 5 and 15-minute load averages when the run began
}

func describeMachine(ctx context.Context, postgresURL string) machine {
	m := machine{CPU: "unknown", CPUs: runtime.NumCPU(), Memory: "unknown", Kernel: "unknown",
		Go: runtime.Version(), LoadAvg: "unknown"}
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
				m.CPU = strings.TrimSpace(value)
				break
			}
		}
	}
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			var kb int64
			if _, err := fmt.Sscanf(line, "MemTotal: %d kB", &kb); err == nil {
				m.Memory = fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
				break
			}
		}
	}
	if raw, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = runtime.GOOS + " " + strings.TrimSpace(string(raw))
	}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(raw)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	m.Postgres = postgresVersion(ctx, postgresURL)
	return m
}
