package run

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// terminalTouchEvery is how often an open terminal records its run's (and
// thread's) activity: well inside the shortest idle pause, a minute.
var terminalTouchEvery = 20 * time.Second

// Terminal is an interactive shell in a run's instance. While it is open
// the run counts as active and its instance as in use: the run does not
// expire, the idle job does not pause the instance, and the provider is
// told it is in use. Close ends the shell.
type Terminal struct {
	provider.PTY
	// Run is the run the terminal was opened in.
	Run auxilia.Run
	// Provider names the provider the shell runs on.
	Provider string

	done    chan struct{}
	stopped chan struct{}
	once    sync.Once
	// closed ends the terminal's usage.
	closed func(at time.Time) error
}

// Close ends the shell, stops keeping the run active and ends its usage.
func (t *Terminal) Close() error {
	var metered error
	t.once.Do(func() {
		close(t.done)
		<-t.stopped
		metered = t.closed(time.Now())
	})
	return errors.Join(t.PTY.Close(), metered)
}

// OpenTerminal opens a shell of size in the run's instance, under the
// execute tool's policy (approved: a person approved the terminal).
func (s *Service) OpenTerminal(ctx context.Context, workspaceID, runID string, size provider.TermSize, approved bool) (*Terminal, error) {
	if err := s.CheckTerminal(ctx, workspaceID, runID, approved); err != nil {
		return nil, err // approved as it opens, or refused: never kept pending
	}
	c, err := s.begin(ctx, workspaceID, runID, terminalCall(approved))
	if err != nil {
		return nil, err
	}
	opener, ok := c.client.(provider.TerminalOpener)
	if !ok {
		return nil, auxilia.Errorf(auxilia.CodeNoTerminal,
			"Sandbox '%s' runs on provider %s, which has no terminal: use the execute tool.", c.sandbox.Name, c.sandbox.Provider).
			With("provider", c.sandbox.Provider)
	}
	pty, err := opener.OpenTerminal(ctx, c.instance, size)
	if err != nil {
		return nil, s.providerError(c, err)
	}
	// Metered from the moment the shell is open; one that cannot be
	// metered is not kept open.
	id, runs := auxilia.NewID(), s.Runs(workspaceID)
	if err := runs.TerminalOpened(ctx, c.run.ID, id, time.Now()); err != nil {
		_ = pty.Close()
		return nil, err
	}
	t := &Terminal{PTY: pty, Run: c.run, Provider: c.sandbox.Provider, done: make(chan struct{}), stopped: make(chan struct{}),
		closed: func(at time.Time) error {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			return runs.TerminalClosed(ctx, id, at)
		}}
	go s.keepTerminal(t, c, id)
	return t, nil
}

// CheckTerminal refuses, as OpenTerminal would, a terminal the run may not
// open now (its policy, its state), without opening one.
func (s *Service) CheckTerminal(ctx context.Context, workspaceID, runID string, approved bool) error {
	c := terminalCall(approved)
	view, err := s.allowed(ctx, workspaceID, runID, c)
	if agent := view.Agent; err == nil && policyOf(agent.Binding, c.Tool) == auxilia.NeedsApproval {
		// A terminal is approved as it opens, in the console, not kept pending.
		return approvedAsMade(ctx, agent, c, approvalRequired(ctx, agent, c), "A terminal")
	}
	return err
}

// terminalCall is a terminal as a call of the execute tool: its policy is
// the terminal's.
func terminalCall(approved bool) Call {
	return Call{Tool: "execute", Approved: approved, Args: map[string]any{"terminal": true}}
}

// keepTerminal keeps the run active, the instance in use and the
// terminal's usage (id) seen until the terminal closes.
func (s *Service) keepTerminal(t *Terminal, c *call, id string) {
	defer close(t.stopped)
	touch := time.NewTicker(terminalTouchEvery)
	defer touch.Stop()
	keep := time.NewTicker(s.opt.KeepAliveEvery)
	defer keep.Stop()
	for {
		select {
		case <-t.done:
			return
		case <-touch.C:
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			_ = s.Runs(c.run.WorkspaceID).Touch(ctx, c.run.ID, time.Now().UTC(), terminalTouchEvery/2)
			_ = s.Runs(c.run.WorkspaceID).TerminalSeen(ctx, id, time.Now())
			cancel()
		case <-keep.C:
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			_ = c.client.KeepAlive(ctx, c.instance)
			cancel()
		}
	}
}
