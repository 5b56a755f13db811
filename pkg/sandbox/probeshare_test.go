package sandbox

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heldProbe is a provider's probe that answers when released, counting
// its calls and telling when one was cut short.
type heldProbe struct {
	calls   atomic.Int32
	release chan ProbeResult
	cut     chan struct{}
}

func newHeldProbe() *heldProbe {
	return &heldProbe{release: make(chan ProbeResult), cut: make(chan struct{}, 8)}
}

func (h *heldProbe) probe(ctx context.Context) ProbeResult {
	h.calls.Add(1)
	select {
	case res := <-h.release:
		return res
	case <-ctx.Done():
		h.cut <- struct{}{}
		return failed(0, "network", ctx.Err().Error())
	}
}

// waitForCalls waits until the probe was called n times.
func (h *heldProbe) waitForCalls(t *testing.T, n int32) {
	t.Helper()
	require.Eventually(t, func() bool { return h.calls.Load() == n }, 5*time.Second, time.Millisecond)
}

// The runs that probe a sandbox while its probe is in flight hear its
// answer, and only they: the next run's probe is its own, as is the probe
// of the sandbox at another version.
func TestRunsProbingASandboxAtOnceShareOneProbe(t *testing.T) {
	s, h := newSharedProbes(), newHeldProbe()
	sb := auxilia.Sandbox{ID: "sb", Version: 3}
	const runs = 8
	var wg sync.WaitGroup
	results := make([]ProbeResult, runs)
	wg.Add(1)
	go func() {
		defer wg.Done()
		results[0] = s.do(context.Background(), sb, h.probe)
	}()
	h.waitForCalls(t, 1)
	for i := 1; i < runs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = s.do(context.Background(), sb, h.probe)
		}()
	}
	require.Eventually(t, func() bool { return waiters(s, sb) == runs }, 5*time.Second, time.Millisecond)

	edited := sb
	edited.Version++
	other := make(chan ProbeResult, 1)
	go func() { other <- s.do(context.Background(), edited, h.probe) }()
	h.waitForCalls(t, 2)
	h.release <- ProbeResult{OK: true, LatencyMS: 7}
	h.release <- failed(9, "auth", "the key was refused")
	wg.Wait()
	got := <-other
	// Which probe took which answer is the scheduler's: the two differ.
	first := results[0]
	assert.NotEqual(t, first, got)
	for _, r := range results {
		assert.Equal(t, first, r, "every run waiting heard the one probe's answer")
	}
	assert.EqualValues(t, 2, h.calls.Load(), "one probe of each version")

	again := make(chan ProbeResult, 1)
	go func() { again <- s.do(context.Background(), sb, h.probe) }()
	h.waitForCalls(t, 3)
	h.release <- ProbeResult{OK: true, LatencyMS: 1}
	assert.Equal(t, ProbeResult{OK: true, LatencyMS: 1}, <-again, "an answer is not kept once given")
}

// A run that leaves stops waiting at once; the probe goes on for those who
// still wait, and is cut short when the last of them leaves.
func TestAProbeGoesOnForTheRunsStillWaiting(t *testing.T) {
	s, h := newSharedProbes(), newHeldProbe()
	sb := auxilia.Sandbox{ID: "sb", Version: 1}
	leaving, cancel := context.WithCancel(context.Background())
	left := make(chan ProbeResult, 1)
	go func() { left <- s.do(leaving, sb, h.probe) }()
	h.waitForCalls(t, 1)
	staying := make(chan ProbeResult, 1)
	go func() { staying <- s.do(context.Background(), sb, h.probe) }()
	require.Eventually(t, func() bool { return waiters(s, sb) == 2 }, 5*time.Second, time.Millisecond)

	cancel()
	res := <-left
	assert.False(t, res.OK)
	assert.Contains(t, res.Detail, "the probe was left")
	h.release <- ProbeResult{OK: true}
	assert.True(t, (<-staying).OK, "the run still waiting hears the provider's answer")
	assert.Empty(t, h.cut, "the probe was not cut short")

	alone, cancelAlone := context.WithCancel(context.Background())
	done := make(chan ProbeResult, 1)
	go func() { done <- s.do(alone, sb, h.probe) }()
	h.waitForCalls(t, 2)
	cancelAlone()
	assert.False(t, (<-done).OK)
	select {
	case <-h.cut:
	case <-time.After(5 * time.Second):
		t.Fatal("a probe nobody waits for was not cut short")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Empty(t, s.inFlight, "a probe cut short is no longer in flight")
}

// waiters counts the runs waiting for sb's probe in flight.
func waiters(s *sharedProbes, sb auxilia.Sandbox) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.inFlight[probeKey{sb.ID, sb.Version}]; p != nil {
		return p.waiting
	}
	return 0
}

// failedProbes counts the probes reported failed.
type failedProbes struct {
	auxilia.NoMetrics
	n atomic.Int32
}

func (f *failedProbes) ProbeFailed(string, string) { f.n.Add(1) }

// answerless is a provider whose probe answers only when its caller leaves.
type answerless struct{ provider.Client }

func (answerless) Probe(ctx context.Context) error {
	<-ctx.Done()
	return provider.Errorf(provider.ErrTimeout, "fake", "probe", "%v", ctx.Err())
}

// A probe cut short by its caller is not a failure of the provider's: it is
// not counted as one; a probe the provider leaves unanswered is.
func TestAProbeCutShortIsNotAFailedProbe(t *testing.T) {
	metrics := &failedProbes{}
	r := New(Deps{Metrics: metrics, ProbeTimeout: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.probe(ctx, answerless{})
	assert.False(t, res.OK)
	assert.Contains(t, res.Detail, "cut short")
	assert.Zero(t, metrics.n.Load())

	res = r.probe(context.Background(), answerless{})
	assert.Equal(t, "no answer within 50ms", res.Detail)
	assert.EqualValues(t, 1, metrics.n.Load())
}
