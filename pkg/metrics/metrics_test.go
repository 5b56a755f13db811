package metrics

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func scrape(t *testing.T, p *Prometheus) string {
	t.Helper()
	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	return string(body)
}

func TestJobSeries(t *testing.T) {
	p := New()
	before := time.Now()
	p.JobRan("reaper", "ok", 2*time.Second)
	p.JobRan("reaper", "failed", time.Second)
	p.JobRan("reaper", "skipped", time.Millisecond)
	p.JobRan("health", "failed", time.Second)
	body := scrape(t, p)

	assert.Contains(t, body, `auxilia_job_runs_total{job="reaper",outcome="ok"} 1`)
	assert.Contains(t, body, `auxilia_job_runs_total{job="reaper",outcome="failed"} 1`)
	assert.Contains(t, body, `auxilia_job_runs_total{job="reaper",outcome="skipped"} 1`)
	assert.Contains(t, body, `auxilia_job_duration_seconds_count{job="reaper"} 2`, "a skipped pass is no run of this replica")
	assert.Contains(t, body, `auxilia_job_duration_seconds_sum{job="reaper"} 3`)

	m := regexp.MustCompile(`auxilia_job_last_success_timestamp_seconds\{job="reaper"\} (\S+)`).FindStringSubmatch(body)
	require.NotNil(t, m, body)
	at, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	assert.InDelta(t, float64(before.Unix()), at, 5)
	assert.NotContains(t, body, `auxilia_job_last_success_timestamp_seconds{job="health"}`, "a job that never succeeded has no last success")
}

func TestPoolSeries(t *testing.T) {
	p := New()
	p.PoolObserved("sb-1", "daytona", 5, 3)
	p.PoolObserved("sb-1", "daytona", 5, 4)
	p.PoolClaimed("daytona", true, 2*time.Millisecond)
	p.PoolClaimed("daytona", false, time.Millisecond)
	p.PoolCreateFailed("daytona")
	body := scrape(t, p)

	assert.Contains(t, body, `auxilia_pool_size{provider="daytona",sandbox="sb-1"} 5`)
	assert.Contains(t, body, `auxilia_pool_ready{provider="daytona",sandbox="sb-1"} 4`, "the last pass's count")
	assert.Contains(t, body, `auxilia_pool_claims_total{outcome="hit",provider="daytona"} 1`)
	assert.Contains(t, body, `auxilia_pool_claims_total{outcome="miss",provider="daytona"} 1`)
	assert.Contains(t, body, `auxilia_pool_claim_duration_seconds_count{provider="daytona"} 1`, "a miss claims nothing")
	assert.Contains(t, body, `auxilia_pool_create_failures_total{provider="daytona"} 1`)
}
