package provider

import "context"

// PoolKeeper is a client whose provider keeps a sandbox's warm pool
// itself (Kubernetes' SandboxWarmPool): instances made ahead of any
// thread and held ready by the provider, one of which its Create takes
// when one is ready, else it makes one. The pool job tells it the size in
// place of making the pool's instances here, and the pool's instances
// are the provider's until a Create takes one: they are not ours to
// count, claim, relabel or retire. A provider whose clients are
// PoolKeepers declares ProviderPool.
type PoolKeeper interface {
	// KeepPool holds size instances ready for the sandbox labels names
	// (its Workspace and Sandbox); 0 removes the pool, its instances with
	// it. It says how the pool stands.
	KeepPool(ctx context.Context, labels Labels, size int) (PoolCount, error)
}

// PoolCount is how a provider-kept pool stands: instances ready to be
// taken, and on their way.
type PoolCount struct {
	Ready    int
	Creating int
}
