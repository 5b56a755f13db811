package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// How a provider's HTTP answers and failures are worded and sorted.

// Failer returns the constructor of one provider's errors: Errorf with the
// provider's name filled in.
func Failer(provider string) func(kind error, op, format string, args ...any) *Error {
	return func(kind error, op, format string, args ...any) *Error {
		return Errorf(kind, provider, op, format, args...)
	}
}

// RoundTripError sorts a call that got no answer. The caller leaving is
// context.Canceled, no fault of the provider's; no answer in time is
// ErrTimeout, none at all ErrUnreachable. The words are the cause alone,
// without the method and URL net/http puts first (a URL may carry a query).
func RoundTripError(ctx context.Context, provider, op string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("%s %s: %w", provider, op, context.Canceled)
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) && urlErr.Err != nil {
		err = urlErr.Err
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return Errorf(ErrTimeout, provider, op, "%s", err)
	}
	return Errorf(ErrUnreachable, provider, op, "%s", err)
}

// StatusKind is the kind of failure an HTTP status means to most
// providers: refused credentials (401, 403), no answer in time (408, 504),
// too many calls (429), else a failure. A provider's Refused hook says what its own statuses
// mean and falls back on it.
func StatusKind(status int) error {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return ErrUnauthorized
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return ErrTimeout
	case http.StatusTooManyRequests:
		return ErrRateLimited
	default:
		return ErrFailed
	}
}

// StatusWords is an error answer in plain words: its status, and the
// body's text when it has one.
func StatusWords(a Answer) string {
	head := fmt.Sprintf("%d %s", a.Status, http.StatusText(a.Status))
	if text := strings.TrimSpace(string(a.Body)); text != "" {
		return head + ": " + text
	}
	return head
}

// Clip returns at most n bytes of text, cut at a character boundary, with
// an ellipsis marking a cut.
func Clip(text string, n int) string {
	if len(text) <= n {
		return text
	}
	return prefix(text, n) + "…"
}

// RetryAfter reads how long an answer asks to wait before the next call:
// the longest of its Retry-After headers (some providers name one per
// limit: Retry-After-authenticated, …), in seconds or as an HTTP date.
// Zero means none was given.
func RetryAfter(h http.Header) time.Duration {
	var longest time.Duration
	for name, values := range h {
		if !strings.HasPrefix(strings.ToLower(name), "retry-after") {
			continue
		}
		for _, v := range values {
			longest = max(longest, parseRetryAfter(v))
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
