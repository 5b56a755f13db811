package main_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var servingMetrics = regexp.MustCompile(`"msg":"serving metrics","url":"(http://[^"]+)"`)

// With AUXILIA_METRICS_LISTEN, /metrics is served there and only there:
// whoever reaches the API's port does not read them.
func TestMetricsOnTheirOwnListener(t *testing.T) {
	srv := instance(t, "AUXILIA_METRICS_LISTEN=127.0.0.1:0")
	srv.waitFor(t, `"msg":"serving metrics"`)
	m := servingMetrics.FindStringSubmatch(srv.logs())
	require.NotNil(t, m, "the log says where metrics are served: %s", srv.logs())
	metricsURL := m[1]
	require.True(t, strings.HasSuffix(metricsURL, "/metrics"), metricsURL)

	status, _ := fetch(t, srv.URL+"/metrics")
	assert.Equal(t, 404, status, "the API's listener does not serve metrics")
	status, body := fetch(t, metricsURL)
	require.Equal(t, 200, status)
	assert.Contains(t, body, "go_goroutines")
	assert.Contains(t, body, `auxilia_http_requests_total{method="GET",route="/metrics",status="404"} 1`,
		"requests to the API's listener are counted")
	base := strings.TrimSuffix(metricsURL, "/metrics")
	for _, path := range []string{"/", "/healthz", "/api/v1/me", "/api/v1/openapi.yaml"} {
		status, _ := fetch(t, base+path)
		assert.Equal(t, 404, status, "the metrics listener serves nothing else: %s", path)
	}
}

// Unset, /metrics stays on the API's listener, as before.
func TestMetricsOnTheAPIListenerByDefault(t *testing.T) {
	srv := instance(t)
	status, body := fetch(t, srv.URL+"/metrics")
	require.Equal(t, 200, status)
	assert.Contains(t, body, "go_goroutines")
	assert.NotContains(t, srv.logs(), "serving metrics")
}

func TestBadMetricsListenIsRefused(t *testing.T) {
	for _, bad := range []string{"9090", "localhost", "127.0.0.1:http-alt-x"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, "serve")
		cmd.Env = append(os.Environ(), "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=", "AUXILIA_LISTEN=127.0.0.1:0",
			"AUXILIA_METRICS_LISTEN="+bad)
		out, err := cmd.CombinedOutput()
		require.Error(t, err, "%s is refused", bad)
		assert.Contains(t, string(out), "AUXILIA_METRICS_LISTEN", bad)
	}
}

// fetch GETs a URL without a token and returns the status and body.
func fetch(t *testing.T, url string) (int, string) {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	res, err := c.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// On Postgres, /metrics tells the line's places taken and how long they
// were held, beside its waits: the requests served took places.
func TestMetricsTellTheLinesPlacesOnPostgres(t *testing.T) {
	const tok = "aux_LineHold0123456789abcdefghijklmnopqrstuvwxy"
	env := []string{"DATABASE_URL=" + storetest.NewEmptyPostgresDatabase(t), "AUXILIA_DATA_DIR=" + t.TempDir(),
		"AUXILIA_BOOTSTRAP_TOKEN=" + tok, "AUXILIA_SECRET_KEYS=" + strings.TrimSpace(cli(t, nil, "keys", "generate"))}
	srv := startServer(t, env...)
	for range 3 {
		status, _ := get(t, srv.URL+"/api/v1/sandboxes", tok)
		require.Equal(t, 200, status)
	}
	status, body := fetch(t, srv.URL+"/metrics")
	require.Equal(t, 200, status)
	series := map[string]float64{}
	for _, line := range strings.Split(body, "\n") {
		name, value, ok := strings.Cut(line, " ")
		if v, err := strconv.ParseFloat(value, 64); ok && err == nil && strings.HasPrefix(name, "auxilia_db_line_") {
			series[name] = v
		}
	}
	assert.GreaterOrEqual(t, series["auxilia_db_line_places_taken_total"], 3.0, "each request took a place: %v", series)
	assert.Positive(t, series["auxilia_db_line_held_seconds_total"], "%v", series)
	assert.Contains(t, series, "auxilia_db_line_waits_total")
	assert.Contains(t, series, "auxilia_db_line_wait_seconds_total")
}
