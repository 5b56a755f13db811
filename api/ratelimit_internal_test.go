package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
)

func TestAProvidersRateLimitIsA429WithItsRetryAfter(t *testing.T) {
	e := auxilia.Errorf(auxilia.CodeProviderLimited, "The provider of sandbox 'Fake' limits how often it is called.")
	e.RetryAfter = time.Hour
	p := problemOf(e)
	assert.Equal(t, http.StatusTooManyRequests, p.Status)
	assert.Equal(t, "provider_rate_limited", p.Reason)
	assert.Equal(t, 3600, p.RetryAfter)
}
