package provider

import "context"

type createdKey struct{}

// WithCreated returns a context for Client.Create carrying fn, which the
// provider calls with the instance's id as soon as it has one, before
// waiting for the instance to be ready: if the creator dies meanwhile, the
// instance is known and can be destroyed rather than left behind.
func WithCreated(ctx context.Context, fn func(id string)) context.Context {
	return context.WithValue(ctx, createdKey{}, fn)
}

// Created tells the creator the provider's id of the instance being created.
// Every provider calls it from Create the moment the id exists.
func Created(ctx context.Context, id string) {
	if fn, ok := ctx.Value(createdKey{}).(func(string)); ok {
		fn(id)
	}
}
