package auxilia

import (
	"context"
	"time"
)

// A request's statements take their turn for a database connection by
// when the request arrived (the store's line, pkg/store/inline.go): the
// oldest request's first.

type arrivalKey struct{}

// Arrived returns ctx whose statements take their turn as of at: a
// request's are as old as the request.
func Arrived(ctx context.Context, at time.Time) context.Context {
	return context.WithValue(ctx, arrivalKey{}, at)
}

// ArrivedAt tells when ctx's request arrived, if ctx says.
func ArrivedAt(ctx context.Context) (time.Time, bool) {
	at, ok := ctx.Value(arrivalKey{}).(time.Time)
	return at, ok
}

// YieldTurn returns ctx whose statements take their turn as if its
// request had arrived the duration by after it did: work about to wait on
// a provider for seconds gives way to the requests that arrived within by
// of it, and still goes before any that came later. Work no request
// carries has no arrival, and ctx is returned as it is.
func YieldTurn(ctx context.Context, by time.Duration) context.Context {
	at, ok := ArrivedAt(ctx)
	if !ok {
		return ctx
	}
	return Arrived(ctx, at.Add(by))
}
