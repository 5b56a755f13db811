package daytona

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfter reads how long a 429 asks us to wait. Daytona's rate limiter
// names each of its limits in the header (Retry-After-authenticated,
// Retry-After-sandbox-create, …); its failed-auth limit uses plain
// Retry-After. The longest one wins; 0 means none was given.
func retryAfter(h http.Header) time.Duration {
	var longest time.Duration
	for name, values := range h {
		if !strings.HasPrefix(strings.ToLower(name), "retry-after") {
			continue
		}
		for _, v := range values {
			if d := parseRetryAfter(v); d > longest {
				longest = d
			}
		}
	}
	return longest
}

// parseRetryAfter reads seconds, or an HTTP date as RFC 9110 allows.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil {
		return time.Until(at)
	}
	return 0
}

// stateChangeInProgress tells Daytona's "try again shortly" 409 from other conflicts.
func stateChangeInProgress(ans answer) bool {
	return strings.Contains(strings.ToLower(messageOf(ans)), "state change in progress")
}
