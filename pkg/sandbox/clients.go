package sandbox

import (
	"context"
	"fmt"
	"sync"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// maxCachedClients bounds the client cache; past it, the cache starts over.
const maxCachedClients = 4096

// clientCache keeps one provider client per sandbox version, so that runs
// reuse its connections instead of dialling the provider afresh each time.
type clientCache struct {
	mu      sync.Mutex
	clients map[string]cachedClient
}

type cachedClient struct {
	version int
	client  provider.Client
}

func newClientCache() *clientCache { return &clientCache{clients: map[string]cachedClient{}} }

// client returns the cached client for sb, or makes one with open.
func (c *clientCache) client(sb auxilia.Sandbox, open func() (provider.Client, error)) (provider.Client, error) {
	c.mu.Lock()
	cached, ok := c.clients[sb.ID]
	c.mu.Unlock()
	if ok && cached.version == sb.Version {
		return cached.client, nil
	}
	client, err := open()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.clients) >= maxCachedClients {
		c.clients = map[string]cachedClient{}
	}
	old, replaced := c.clients[sb.ID]
	c.clients[sb.ID] = cachedClient{version: sb.Version, client: client}
	c.mu.Unlock()
	if closer, ok := old.client.(idleCloser); replaced && ok {
		closer.CloseIdleConnections() // the sandbox changed: its old connections are not needed
	}
	return client, nil
}

// Config returns a sandbox's typed provider config.
func (r *Registry) Config(sb auxilia.Sandbox) (provider.Config, error) {
	kind, ok := r.Providers.Kind(sb.Provider)
	if !ok {
		return nil, fmt.Errorf("no provider %q on this server", sb.Provider)
	}
	cfg, errs := provider.DecodeConfig(kind, sb.Config)
	if len(errs) > 0 {
		return nil, fmt.Errorf("stored config of sandbox %s does not decode: %s %s", sb.ID, errs[0].Field, errs[0].Message)
	}
	return cfg, nil
}

// Describe is what a sandbox's provider says about itself.
func (r *Registry) Describe(sb auxilia.Sandbox) (provider.Descriptor, error) {
	kind, ok := r.Providers.Kind(sb.Provider)
	if !ok {
		return provider.Descriptor{}, fmt.Errorf("no provider %q on this server", sb.Provider)
	}
	return kind.Describe(), nil
}

type idleCloser interface{ CloseIdleConnections() }

// openClient makes a provider client for a sandbox spec and secret.
func (r *Registry) openClient(spec auxilia.SandboxSpec, secretValue string) (provider.Client, error) {
	kind, ok := r.Providers.Kind(spec.Provider)
	if !ok {
		return nil, fmt.Errorf("no provider %q on this server", spec.Provider)
	}
	cfg, errs := provider.DecodeConfig(kind, spec.Config)
	if len(errs) > 0 {
		return nil, fmt.Errorf("stored config of provider %s does not decode: %s %s", spec.Provider, errs[0].Field, errs[0].Message)
	}
	client, err := kind.Open(provider.Settings{URL: spec.URL, Secret: secretValue, Config: cfg, Policy: r.Providers.Policy()})
	if err != nil {
		return nil, provider.ScrubError(err, secretValue)
	}
	return provider.Instrument(client, spec.Provider, r.Metrics, secretValue), nil
}

// Client returns the provider client of a workspace's sandbox, with the sandbox.
func (r *Registry) Client(ctx context.Context, workspaceID, id string) (provider.Client, auxilia.Sandbox, error) {
	sb, sealed, err := r.Store(workspaceID).GetSealed(ctx, id)
	if err != nil {
		return nil, sb, err
	}
	return r.ClientOf(sb, sealed)
}

// RetainedClient returns the client of a sandbox even after its deletion:
// the reaper destroys a deleted sandbox's instances with its retained credentials.
func (r *Registry) RetainedClient(ctx context.Context, id string) (provider.Client, auxilia.Sandbox, error) {
	sb, sealed, err := r.Retained.GetSealedAny(ctx, id)
	if err != nil {
		return nil, sb, err
	}
	return r.ClientOf(sb, sealed)
}

// ClientOf is Client for a sandbox the caller has read, with its sealed
// secret: the client made for its version, kept for the next call.
func (r *Registry) ClientOf(sb auxilia.Sandbox, sealed auxilia.SealedSecret) (provider.Client, auxilia.Sandbox, error) {
	client, err := r.clients.client(sb, func() (provider.Client, error) {
		secretValue, err := r.open(sb.ID, sealed)
		if err != nil {
			return nil, err
		}
		return r.openClient(sb.SandboxSpec, secretValue)
	})
	if err != nil {
		// The sandbox cannot be driven as stored (its secret does not decrypt
		// with this server's keys, its config no longer decodes): a problem of
		// its configuration, worded without the secret.
		return nil, sb, provider.Errorf(provider.ErrInvalidConfig, sb.Provider, "open", "%s", clientError(err))
	}
	return client, sb, nil
}
