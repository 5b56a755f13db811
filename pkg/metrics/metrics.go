// Package metrics exposes Auxilia's counters and latencies in the
// Prometheus text format at /metrics.
package metrics

import (
	"database/sql"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Prometheus records the events of auxilia.Metrics as Prometheus series.
type Prometheus struct {
	registry         *prometheus.Registry
	requests         *prometheus.CounterVec
	requestDuration  *prometheus.HistogramVec
	providerCalls    *prometheus.CounterVec
	providerDuration *prometheus.HistogramVec
	runs             *prometheus.CounterVec
	probesFailed     *prometheus.CounterVec
	instances        *prometheus.CounterVec
	jobRuns          *prometheus.CounterVec
	jobDuration      *prometheus.HistogramVec
	jobLastSuccess   *prometheus.GaugeVec
	poolSize         *prometheus.GaugeVec
	poolReady        *prometheus.GaugeVec
	poolClaims       *prometheus.CounterVec
	poolClaimTime    *prometheus.HistogramVec
	poolFailures     *prometheus.CounterVec
}

// New returns the metrics of one server.
func New() *Prometheus {
	p := &Prometheus{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auxilia_http_requests_total", Help: "HTTP requests served, by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "auxilia_http_request_duration_seconds", Help: "Time to serve an HTTP request, by route pattern and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route", "method"}),
		providerCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auxilia_provider_calls_total", Help: "Calls to sandbox providers, by provider, operation and outcome (ok, or the failure's reason).",
		}, []string{"provider", "operation", "outcome"}),
		providerDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "auxilia_provider_call_duration_seconds", Help: "Time a provider call took, by provider and operation.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"provider", "operation"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auxilia_runs_started_total", Help: "Runs started, by provider (none for runs without a sandbox).",
		}, []string{"provider"}),
		probesFailed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auxilia_probes_failed_total", Help: "Failed provider probes, by provider and reason (network, auth, config, quota, provider).",
		}, []string{"provider", "reason"}),
		instances: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auxilia_instances_total", Help: "Sandbox instances created, replaced or destroyed, by provider.",
		}, []string{"provider", "event"}),
		jobRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auxilia_job_runs_total", Help: "Passes of background jobs, by job and outcome (ok, failed, or skipped: another replica held the job).",
		}, []string{"job", "outcome"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "auxilia_job_duration_seconds", Help: "Time a background job's pass took in this replica, by job.",
			Buckets: []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 300, 900},
		}, []string{"job"}),
		jobLastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "auxilia_job_last_success_timestamp_seconds", Help: "When a background job's last pass in this replica succeeded (Unix time), by job.",
		}, []string{"job"}),
		poolSize: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "auxilia_pool_size", Help: "Instances a sandbox's warm pool keeps ready, as configured, by sandbox.",
		}, []string{"sandbox", "provider"}),
		poolReady: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "auxilia_pool_ready", Help: "Instances ready in a sandbox's warm pool at its last pass, by sandbox.",
		}, []string{"sandbox", "provider"}),
		poolClaims: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auxilia_pool_claims_total", Help: "New threads' asks of a warm pool, by provider and outcome (hit: served from the pool; miss: it was empty, the run created).",
		}, []string{"provider", "outcome"}),
		poolClaimTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "auxilia_pool_claim_duration_seconds", Help: "Time to claim an instance of a warm pool (the claim's transaction), by provider.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}, []string{"provider"}),
		poolFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "auxilia_pool_create_failures_total", Help: "Warm pool creates that failed, by provider.",
		}, []string{"provider"}),
	}
	p.registry.MustRegister(p.requests, p.requestDuration, p.providerCalls, p.providerDuration, p.runs,
		p.probesFailed, p.instances, p.jobRuns, p.jobDuration, p.jobLastSuccess,
		p.poolSize, p.poolReady, p.poolClaims, p.poolClaimTime, p.poolFailures,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return p
}

// WatchDB adds the database pool's statistics.
func (p *Prometheus) WatchDB(db *sql.DB) {
	p.registry.MustRegister(collectors.NewDBStatsCollector(db, "auxilia"))
}

// WatchConnectionWaits adds the waits for a place in line for a database
// connection (store.DB.ConnectionWaits), which come before database/sql's own.
func (p *Prometheus) WatchConnectionWaits(waits func() (int64, time.Duration)) {
	p.watchTally(waits,
		"auxilia_db_line_waits_total", "Statements and transactions that waited for a place in line for a database connection.",
		"auxilia_db_line_wait_seconds_total", "Time spent waiting for a place in line for a database connection, all waits together.")
}

// WatchLineHolds adds the places taken in line for a database connection
// and how long they were held (store.DB.LineHolds): their ratio is a
// statement's mean hold, its wait for the server's processors included.
func (p *Prometheus) WatchLineHolds(holds func() (int64, time.Duration)) {
	p.watchTally(holds,
		"auxilia_db_line_places_taken_total", "Places in line for a database connection taken by statements and transactions.",
		"auxilia_db_line_held_seconds_total", "Time places in line for a database connection were held, all places together.")
}

// watchTally adds a count and a time read together, as two counters.
func (p *Prometheus) watchTally(read func() (int64, time.Duration), count, countHelp, seconds, secondsHelp string) {
	p.registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: count, Help: countHelp},
			func() float64 { n, _ := read(); return float64(n) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: seconds, Help: secondsHelp},
			func() float64 { _, d := read(); return d.Seconds() }))
}

// Handler serves the metrics.
func (p *Prometheus) Handler() http.Handler {
	return promhttp.HandlerFor(p.registry, promhttp.HandlerOpts{Registry: p.registry})
}

func (p *Prometheus) RequestServed(route, method string, status int, took time.Duration) {
	p.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	p.requestDuration.WithLabelValues(route, method).Observe(took.Seconds())
}

func (p *Prometheus) ProviderCalled(provider, operation, outcome string, took time.Duration) {
	p.providerCalls.WithLabelValues(provider, operation, outcome).Inc()
	p.providerDuration.WithLabelValues(provider, operation).Observe(took.Seconds())
}

func (p *Prometheus) RunStarted(provider string) {
	if provider == "" {
		provider = "none"
	}
	p.runs.WithLabelValues(provider).Inc()
}

func (p *Prometheus) ProbeFailed(provider, reason string) {
	p.probesFailed.WithLabelValues(provider, reason).Inc()
}

func (p *Prometheus) InstanceChanged(provider, event string) {
	p.instances.WithLabelValues(provider, event).Inc()
}

func (p *Prometheus) JobRan(job, outcome string, took time.Duration) {
	p.jobRuns.WithLabelValues(job, outcome).Inc()
	if outcome == "skipped" {
		return
	}
	p.jobDuration.WithLabelValues(job).Observe(took.Seconds())
	if outcome == "ok" {
		p.jobLastSuccess.WithLabelValues(job).Set(float64(time.Now().UnixNano()) / 1e9)
	}
}

func (p *Prometheus) PoolObserved(sandboxID, provider string, size, ready int) {
	p.poolSize.WithLabelValues(sandboxID, provider).Set(float64(size))
	p.poolReady.WithLabelValues(sandboxID, provider).Set(float64(ready))
}

func (p *Prometheus) PoolClaimed(provider string, hit bool, took time.Duration) {
	outcome := "miss"
	if hit {
		outcome = "hit"
		p.poolClaimTime.WithLabelValues(provider).Observe(took.Seconds())
	}
	p.poolClaims.WithLabelValues(provider, outcome).Inc()
}

func (p *Prometheus) PoolCreateFailed(provider string) {
	p.poolFailures.WithLabelValues(provider).Inc()
}
