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

// Slow returns w sending what it is given a few bytes at a time, every
// apart, as a slow or congested provider's answer arrives. Writing fails
// once the client has left.
func Slow(w http.ResponseWriter, r *http.Request, every time.Duration) http.ResponseWriter {
	return &slowWriter{ResponseWriter: w, ctx: r.Context(), every: every}
}

// slowPiece is how much a slow answer sends at a time.
const slowPiece = 16

type slowWriter struct {
	http.ResponseWriter
	ctx   context.Context
	every time.Duration
	sent  bool
}

func (s *slowWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if s.sent && !Wait(s.ctx, s.every, nil) {
			return written, s.ctx.Err()
		}
		n, err := s.ResponseWriter.Write(p[:min(slowPiece, len(p))])
		written += n
		if err != nil {
			return written, err
		}
		if f, ok := s.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		s.sent, p = true, p[n:]
	}
	return written, nil
}

// Flush passes a handler's flushes on.
func (s *slowWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
