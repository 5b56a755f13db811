package gateway

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// healthTTL is how long a launcher check is reused: /health is polled, and a check starts a process.
const healthTTL = 30 * time.Second

// launcherHealth caches whether the launcher can run sandboxes.
type launcherHealth struct {
	launcher Launcher

	mu      sync.Mutex
	checked time.Time
	err     error
}

func (h *launcherHealth) check(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if time.Since(h.checked) < healthTTL {
		return h.err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	h.err = h.launcher.Check(ctx)
	h.checked = time.Now()
	return h.err
}

// Health is what GET /health answers.
type Health = wire.Health

func (s *Server) getHealth(w http.ResponseWriter, r *http.Request) {
	h := Health{AllowEgress: s.cfg.AllowEgress, Launcher: s.launcher.Name(), CLIMounted: true}
	if err := s.health.check(r.Context()); err != nil {
		h.CLIMounted, h.Detail = false, err.Error()
	}
	writeJSON(w, http.StatusOK, h)
}
