package api_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/faultproxy"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With a fault proxy between the server and Postgres resetting every
// connection, a request answers 503 service_unavailable with Retry-After
// (as openapi.yaml declares); once the network heals, requests succeed.
func TestADatabaseBehindABrokenNetworkAnswers503UntilItHeals(t *testing.T) {
	u, err := url.Parse(storetest.NewPostgresDatabase(t))
	require.NoError(t, err)
	proxy := faultproxy.New(t, u.Host)
	u.Host = proxy.Addr()
	db, err := store.Open(context.Background(), u.String(), "")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	e := newEnv(t, db)
	require.Equal(t, 200, e.call("GET", "/api/v1/sandboxes", e.admin, nil).StatusCode)

	proxy.ResetPeer(t)
	r := e.call("GET", "/api/v1/sandboxes", e.admin, nil)
	r.problem(t, 503, "service_unavailable")
	assert.Equal(t, "5", r.Header.Get("Retry-After"))

	proxy.Heal(t)
	assert.Eventually(t, func() bool { return e.call("GET", "/api/v1/sandboxes", e.admin, nil).StatusCode == 200 },
		10*time.Second, 50*time.Millisecond, "requests succeed again once the network heals")
}
