package metrics

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/prometheus/client_golang/prometheus"
)

// UsageSource reads every workspace's usage (store.System.UsageSnapshot).
type UsageSource func(ctx context.Context, monthStart, now time.Time) ([]auxilia.WorkspaceUsage, error)

// WatchUsage adds each workspace's metered usage, read from the database at
// each scrape, so every replica reports the same numbers.
func (p *Prometheus) WatchUsage(src UsageSource) {
	p.registry.MustRegister(usageCollector{src: src, now: time.Now})
}

var (
	usageInstances = prometheus.NewDesc("auxilia_workspace_instances",
		"Instances a workspace has now, by metered state (running, being created included; paused).", []string{"workspace", "state"}, nil)
	usageMonthSeconds = prometheus.NewDesc("auxilia_workspace_instance_seconds_month",
		"Instance-seconds a workspace used since the start of the UTC month, by metered state.", []string{"workspace", "state"}, nil)
	usageEvents = prometheus.NewDesc("auxilia_workspace_instance_events_total",
		"Instances a workspace had created (gone live), failed (let go before live) or replaced (found gone at the provider).", []string{"workspace", "kind"}, nil)
	usageCommands = prometheus.NewDesc("auxilia_workspace_commands_total",
		"Commands the execute tool ran in a workspace's instances.", []string{"workspace"}, nil)
	usageCommandSeconds = prometheus.NewDesc("auxilia_workspace_command_seconds_total",
		"Seconds a workspace's commands took, from sending to answer.", []string{"workspace"}, nil)
	usageTerminalSeconds = prometheus.NewDesc("auxilia_workspace_terminal_seconds_total",
		"Seconds a workspace's interactive terminals were open (an open one until it was last seen, every 20 seconds).", []string{"workspace"}, nil)
	usageKeptByteSeconds = prometheus.NewDesc("auxilia_workspace_kept_byte_seconds_total",
		"A workspace's kept files' bytes times the seconds they have been kept (as their providers reported their size).", []string{"workspace"}, nil)
	usageKeptBytes = prometheus.NewDesc("auxilia_workspace_kept_bytes",
		"Bytes of kept files a workspace has now (as their providers reported them).", []string{"workspace"}, nil)
	usageUp = prometheus.NewDesc("auxilia_workspace_usage_up",
		"1 when the last scrape read the workspaces' usage from the database, 0 when it could not.", nil, nil)
)

type usageCollector struct {
	src UsageSource
	now func() time.Time
}

func (usageCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- usageInstances
	ch <- usageMonthSeconds
	ch <- usageEvents
	ch <- usageCommands
	ch <- usageCommandSeconds
	ch <- usageTerminalSeconds
	ch <- usageKeptByteSeconds
	ch <- usageKeptBytes
	ch <- usageUp
}

func (c usageCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	now := c.now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	all, err := c.src(ctx, month, now)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(usageUp, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(usageUp, prometheus.GaugeValue, 1)
	for _, u := range all {
		for _, state := range []string{auxilia.UsageRunning, auxilia.UsagePaused} {
			ch <- prometheus.MustNewConstMetric(usageInstances, prometheus.GaugeValue, float64(u.Instances[state]), u.Workspace, state)
			ch <- prometheus.MustNewConstMetric(usageMonthSeconds, prometheus.GaugeValue, u.MonthSeconds[state], u.Workspace, state)
		}
		for _, kind := range []string{auxilia.UsageCreated, auxilia.UsageFailed, auxilia.UsageReplaced} {
			ch <- prometheus.MustNewConstMetric(usageEvents, prometheus.CounterValue, float64(u.Events[kind]), u.Workspace, kind)
		}
		ch <- prometheus.MustNewConstMetric(usageCommands, prometheus.CounterValue, float64(u.Commands), u.Workspace)
		ch <- prometheus.MustNewConstMetric(usageCommandSeconds, prometheus.CounterValue, u.CommandSeconds, u.Workspace)
		ch <- prometheus.MustNewConstMetric(usageTerminalSeconds, prometheus.CounterValue, u.TerminalSeconds, u.Workspace)
		ch <- prometheus.MustNewConstMetric(usageKeptByteSeconds, prometheus.CounterValue, u.KeptByteSeconds, u.Workspace)
		ch <- prometheus.MustNewConstMetric(usageKeptBytes, prometheus.GaugeValue, float64(u.KeptBytes), u.Workspace)
	}
}
