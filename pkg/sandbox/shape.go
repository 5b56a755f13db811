package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// current returns sb with its config in today's shape: a config stored by
// an older version (local's network switch and memory_mb, Cloud Run's
// allow_egress, OpenSandbox's cpu and memory quantities) reads as what it
// meant, every default written out. A config that does not decode is
// returned as stored, for its client to refuse with the reason.
func (r *Registry) current(sb auxilia.Sandbox) auxilia.Sandbox {
	if s := r.shape(sb); s.decoded {
		sb.Config = bytes.Clone(s.config)
	}
	return sb
}

// WarmPool is the warm pool a sandbox's config asks for. A config that
// does not decode here (its provider is not on this server) is an error.
func (r *Registry) WarmPool(sb auxilia.Sandbox) (provider.Pool, error) {
	s := r.shape(sb)
	return s.pool, s.err
}

// shaped is what a stored config reads as: it depends on the provider and
// the stored bytes alone, so it is worked out once for each.
type shaped struct {
	decoded bool
	config  []byte // today's shape, when decoded (shared: copy before handing out)
	pool    provider.Pool
	err     error // why it did not decode
}

// maxShapes bounds the cache of shaped configs; past it, the cache starts over.
const maxShapes = 4096

// shapeCache spares the reads of a sandbox decoding and encoding its config
// each time: a sandbox's view is read far more often than it is edited. Its
// shapes are by provider, then by stored config (a lookup by the config's
// bytes copies nothing).
type shapeCache struct {
	mu     sync.Mutex
	shapes map[string]map[string]shaped
	count  int
}

func newShapeCache() *shapeCache { return &shapeCache{shapes: map[string]map[string]shaped{}} }

func (r *Registry) shape(sb auxilia.Sandbox) shaped {
	if r.shapes == nil { // a registry made without New
		return r.decodeShape(sb)
	}
	c := r.shapes
	c.mu.Lock()
	s, ok := c.shapes[sb.Provider][string(sb.Config)]
	c.mu.Unlock()
	if ok {
		return s
	}
	s = r.decodeShape(sb)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.count >= maxShapes {
		c.shapes, c.count = map[string]map[string]shaped{}, 0
	}
	byConfig := c.shapes[sb.Provider]
	if byConfig == nil {
		byConfig = map[string]shaped{}
		c.shapes[sb.Provider] = byConfig
	}
	if _, ok := byConfig[string(sb.Config)]; !ok {
		c.count++
	}
	byConfig[string(sb.Config)] = s
	return s
}

func (r *Registry) decodeShape(sb auxilia.Sandbox) shaped {
	kind, ok := r.Providers.Kind(sb.Provider)
	if !ok {
		return shaped{err: fmt.Errorf("no provider %q on this server", sb.Provider)}
	}
	cfg, errs := provider.DecodeConfig(kind, sb.Config)
	if len(errs) > 0 {
		return shaped{err: errors.New("stored config does not decode: " + errs[0].Field + " " + errs[0].Message)}
	}
	raw, err := provider.EncodeConfig(cfg)
	if err != nil {
		return shaped{err: err}
	}
	return shaped{decoded: true, config: raw, pool: cfg.WarmPool()}
}
