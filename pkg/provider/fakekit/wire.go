package fakekit

import (
	"context"
	"net/http"
	"time"
)

// Wait waits d, or less when the request is abandoned or stop is closed
// (the fake stopping; nil never is). It reports whether all of d passed.
func Wait(ctx context.Context, d time.Duration, stop <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	case <-t.C:
		return true
	}
}

// Latency delays every request by d before next handles it, as a
// provider's round trip would; the delay ends early with the request.
func Latency(d time.Duration, next http.Handler) http.Handler {
	if d <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Wait(r.Context(), d, nil)
		next.ServeHTTP(w, r)
	})
}

// Drop closes the request's connection without an answer, as when nothing
// listens behind the address yet or a gateway dies mid-call.
func Drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// Trickle answers with status and body, sending the body a piece at a
// time, every apart, as a slow or congested provider does. It stops when
// the client leaves.
func Trickle(w http.ResponseWriter, r *http.Request, status int, body []byte, piece int, every time.Duration) {
	w.WriteHeader(status)
	flusher, _ := w.(http.Flusher)
	for len(body) > 0 {
		n := min(max(piece, 1), len(body))
		if _, err := w.Write(body[:n]); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		body = body[n:]
		if len(body) > 0 && !Wait(r.Context(), every, nil) {
			return
		}
	}
}
