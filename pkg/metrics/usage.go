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
	}
}
