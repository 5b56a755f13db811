package api_test

import (
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRateLimitHoldsAcrossReplicas(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		// A second replica: another server on the same database.
		replica := httptest.NewServer(e.echo)
		defer replica.Close()
		first := e.srv
		for i := 0; i < 3; i++ {
			if i == 1 {
				e.srv = replica
			}
			require.Equal(t, 200, e.call("GET", "/api/v1/me", e.member, nil).StatusCode)
		}
		r := e.call("GET", "/api/v1/me", e.member, nil)
		r.problem(t, 429, "rate_limited")
		wait, err := strconv.Atoi(r.Header.Get("Retry-After"))
		require.NoError(t, err)
		assert.True(t, wait >= 1 && wait <= 61, "Retry-After %d", wait)
		e.srv = first
		e.call("GET", "/api/v1/me", e.member, nil).problem(t, 429, "rate_limited")
		assert.Equal(t, 200, e.call("GET", "/api/v1/me", e.admin, nil).StatusCode, "each token has its own limit")
		assert.Equal(t, 200, e.call("GET", "/healthz", "", nil).StatusCode, "health checks are never limited")
	}, func(o *options) { o.rateLimit = 3 })
}

func TestRefusedRequestsCountAgainstTheLimit(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		for i := 0; i < 3; i++ {
			e.call("GET", "/api/v1/sandboxes?name=a%00b", e.member, nil).problem(t, 422, "validation_failed")
		}
		e.call("GET", "/api/v1/sandboxes?name=a%00b", e.member, nil).problem(t, 429, "rate_limited")
	}, func(o *options) { o.rateLimit = 3 })
}
