package local

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// errDestroyed ends the commands of an instance being destroyed.
var errDestroyed = errors.New("the instance was destroyed while the command ran")

// maxCommands is how many commands an instance may run at once: past it, a
// command is refused at once (ErrBusy), never queued without end.
const maxCommands = 16

// busyRetryAfter is when a command refused for that may be tried again.
const busyRetryAfter = 5 * time.Second

// commands are the running commands of one instance.
type commands struct {
	stops   map[int]context.CancelCauseFunc
	next    int
	done    sync.WaitGroup
	closing bool // the instance is being destroyed: no new commands
}

// track counts a command of instance id as running until untrack; stop
// ends it. It refuses the command when the instance is being destroyed
// (ErrGone) or already runs maxCommands (ErrBusy).
func (c *client) track(op, id string, stop context.CancelCauseFunc) (untrack func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cmds := c.commandsOf(id)
	if cmds.closing {
		return nil, gone(op, id)
	}
	if len(cmds.stops) >= maxCommands {
		return nil, &provider.Error{Kind: provider.ErrBusy, Provider: providerName, Op: op, RetryAfter: busyRetryAfter,
			Message: fmt.Sprintf("instance %s already runs %d commands, as many as it may at once", id, maxCommands)}
	}
	n := cmds.next
	cmds.next++
	cmds.stops[n] = stop
	cmds.done.Add(1)
	return func() {
		c.mu.Lock()
		delete(cmds.stops, n)
		if len(cmds.stops) == 0 && !cmds.closing {
			delete(c.running, id)
		}
		c.mu.Unlock()
		cmds.done.Done()
	}, nil
}

// stopAll ends the commands of instance id, waits until they are over and
// keeps new ones out until finish is called.
func (c *client) stopAll(id string) (finish func()) {
	c.mu.Lock()
	cmds := c.commandsOf(id)
	cmds.closing = true
	for _, stop := range cmds.stops {
		stop(errDestroyed)
	}
	c.mu.Unlock()
	cmds.done.Wait()
	return func() {
		c.mu.Lock()
		if c.running[id] == cmds {
			delete(c.running, id)
		}
		c.mu.Unlock()
	}
}

// commandsOf returns the commands of instance id; c.mu must be held.
func (c *client) commandsOf(id string) *commands {
	cmds := c.running[id]
	if cmds == nil {
		cmds = &commands{stops: map[int]context.CancelCauseFunc{}}
		c.running[id] = cmds
	}
	return cmds
}
