package auxilia

import "time"

// Metrics receives the events operators count. Every layer reports through
// it; pkg/metrics turns them into Prometheus series.
type Metrics interface {
	// RequestServed: an HTTP request on route (its pattern) ended with status.
	RequestServed(route, method string, status int, took time.Duration)
	// ProviderCalled: a call to a provider ended; outcome is "ok" or the failure's reason.
	ProviderCalled(provider, operation, outcome string, took time.Duration)
	// RunStarted: a run began; provider is "" for a run without a sandbox.
	RunStarted(provider string)
	// ProbeFailed: a probe of a provider failed for reason (network, auth, config, quota, provider).
	ProbeFailed(provider, reason string)
	// InstanceChanged: an instance was created, replaced or destroyed.
	InstanceChanged(provider, event string)
	// JobRan: a background job's pass ended with outcome ok or failed, or
	// was skipped because another replica held the job.
	JobRan(job, outcome string, took time.Duration)
	// PoolObserved: a warm pool's pass found size wanted and ready instances.
	PoolObserved(sandboxID, provider string, size, ready int)
	// PoolClaimed: a new thread's run asked a warm pool for an instance and
	// got one (hit) or found it empty, in took.
	PoolClaimed(provider string, hit bool, took time.Duration)
	// PoolCreateFailed: a warm pool's create failed.
	PoolCreateFailed(provider string)
}

// NoMetrics counts nothing.
type NoMetrics struct{}

func (NoMetrics) RequestServed(string, string, int, time.Duration)     {}
func (NoMetrics) ProviderCalled(string, string, string, time.Duration) {}
func (NoMetrics) RunStarted(string)                                    {}
func (NoMetrics) ProbeFailed(string, string)                           {}
func (NoMetrics) InstanceChanged(string, string)                       {}
func (NoMetrics) JobRan(string, string, time.Duration)                 {}
func (NoMetrics) PoolObserved(string, string, int, int)                {}
func (NoMetrics) PoolClaimed(string, bool, time.Duration)              {}
func (NoMetrics) PoolCreateFailed(string)                              {}
