package run

import (
	"context"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// AddWarmPool puts a pool of instances made in advance ahead of creation,
// as a warm pool will be: one more strategy, with a step of its own.
func AddWarmPool(s *Service, ready ...provider.Instance) {
	last := len(s.strategies) - 1
	s.strategies = append(s.strategies[:last:last], &warmPool{ready: ready}, s.strategies[last])
}

// warmPool hands a thread without an instance one of its ready instances.
type warmPool struct {
	mu    sync.Mutex
	ready []provider.Instance
}

func (p *warmPool) choose(ctx context.Context, a *allocation, thread auxilia.Thread, now time.Time) (step, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if thread.Instance != nil || len(p.ready) == 0 {
		return nil, nil
	}
	inst, err := a.svc.Instances(a.agent.WorkspaceID).Claim(ctx, thread, a.sb.ID, a.run.ID, now.Add(a.svc.opt.CreateLease))
	if err != nil {
		return nil, err
	}
	taken := p.ready[0]
	p.ready = p.ready[1:]
	return handingOver{inst, taken}, nil
}

// handingOver makes a pooled instance the thread's.
type handingOver struct {
	inst   auxilia.Instance
	pooled provider.Instance
}

func (h handingOver) take(ctx context.Context, a *allocation) (step, error) {
	sealed, err := a.svc.sealState(h.inst.ID, h.pooled.State)
	if err != nil {
		return nil, err
	}
	if _, err := a.svc.Instances(a.agent.WorkspaceID).MarkLive(ctx, h.inst.ID, h.pooled.ID, h.pooled.WorkDir, sealed); err != nil {
		return nil, err
	}
	h.inst.ProviderRef, h.inst.WorkDir, h.inst.State, h.inst.Status = h.pooled.ID, h.pooled.WorkDir, sealed, auxilia.InstanceLive
	return allocated{ensured{instance: h.inst}}, nil
}

// SetTerminalTouchEvery makes open terminals record their run's activity
// every d, until the test ends.
func SetTerminalTouchEvery(t interface{ Cleanup(func()) }, d time.Duration) {
	was := terminalTouchEvery
	terminalTouchEvery = d
	t.Cleanup(func() { terminalTouchEvery = was })
}

// SetCallTouchEvery makes long tool calls record their run's activity every
// d, until the test ends.
func SetCallTouchEvery(t interface{ Cleanup(func()) }, d time.Duration) {
	was := callTouchEvery
	callTouchEvery = d
	t.Cleanup(func() { callTouchEvery = was })
}

// CreatesWaiting is how many of the runs' creates of the sandbox wait for their turn.
func CreatesWaiting(s *Service, sandboxID string) int { return s.creates.waiting(sandboxID) }

// TurnsWaiting is how many run starts wait for their turn to read and choose.
func TurnsWaiting(s *Service) int { return s.choosing.waiters() }

// MakingYield is how much later a start that makes its instance takes its
// statements' turn.
const MakingYield = makingYield
