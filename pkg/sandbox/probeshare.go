package sandbox

import (
	"context"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// sharedProbes lets the runs that probe a saved sandbox while its probe is
// in flight wait for that probe's answer rather than send their own: a
// burst of new threads creating their instances (a sandbox's creates go
// many at once) asks the provider once while it answers, not once a
// thread. A run only joins a probe in flight, never an answer already
// given, so none hears an answer older than the probe running as it asked.
// A probe is of the sandbox at a version, which fixes its url, secret and
// config. It runs for those who wait for it: when the last of them leaves,
// it is cut short, and its outcome, which no provider gave, is not
// recorded.
type sharedProbes struct {
	mu       sync.Mutex
	inFlight map[probeKey]*sharedProbe
}

type probeKey struct {
	sandboxID string
	version   int
}

type sharedProbe struct {
	done    chan struct{}
	res     ProbeResult // once done is closed
	waiting int         // under sharedProbes.mu
	cancel  context.CancelFunc
}

func newSharedProbes() *sharedProbes { return &sharedProbes{inFlight: map[probeKey]*sharedProbe{}} }

// do waits for the answer of sb's probe in flight, or sends probe when
// none is, and tells its outcome; a caller whose ctx ends leaves at once.
// probe runs in a context of its own, which the end of any one caller's
// does not end.
func (s *sharedProbes) do(ctx context.Context, sb auxilia.Sandbox, probe func(context.Context) ProbeResult) ProbeResult {
	key := probeKey{sb.ID, sb.Version}
	s.mu.Lock()
	p, ok := s.inFlight[key]
	if !ok {
		probeCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		p = &sharedProbe{done: make(chan struct{}), cancel: cancel}
		s.inFlight[key] = p
		go func() {
			defer cancel()
			res := probe(probeCtx)
			s.mu.Lock()
			if s.inFlight[key] == p {
				delete(s.inFlight, key)
			}
			s.mu.Unlock()
			p.res = res
			close(p.done)
		}()
	}
	p.waiting++
	s.mu.Unlock()
	began := time.Now()
	select {
	case <-p.done:
		return p.res
	case <-ctx.Done():
		s.leave(key, p)
		return failed(int(time.Since(began).Milliseconds()), "network", "the probe was left: "+ctx.Err().Error())
	}
}

// leave takes a caller off p's waiters, and cuts p short when it was the last.
func (s *sharedProbes) leave(key probeKey, p *sharedProbe) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.waiting--
	if p.waiting > 0 {
		return
	}
	if s.inFlight[key] == p {
		delete(s.inFlight, key)
	}
	p.cancel()
}
