package local

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/jailfs"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// runner is where one command or terminal of an instance runs: a bubblewrap
// jail of its own, or the instance's gVisor container.
type runner interface {
	// Run runs command with sh -c, as bubblewrap.Jail.Run does.
	Run(ctx context.Context, command string, timeout time.Duration, stdout, stderr io.Writer) (bubblewrap.Result, error)
	// RunTerminal runs command on tty, as bubblewrap.Jail.RunTerminal does.
	RunTerminal(ctx context.Context, command string, tty *os.File) (bubblewrap.Result, error)
}

// isolator is what differs between the isolations of an instance: where
// its commands run, how they are held still, and what is left of it to end
// when it is destroyed. Files are the same for both: the door (jailfs) on
// the instance's folder.
type isolator interface {
	// runner is where a command of inst runs, as user on its folder dir
	// (its disk mounted), until done is called.
	runner(op string, inst provider.Instance, user jailfs.User, dir string) (r runner, done func(), err error)
	// freeze stops (frozen) or lets go on every process of instance id.
	// canFreeze says whether it can: where it cannot, nothing is stopped.
	freeze(id string, frozen bool) error
	canFreeze() bool
	// destroy ends what runs of instance id, its commands already ended.
	destroy(ctx context.Context, id string) error
}

// isolator is the instances' isolation, as the sandbox's config says.
func (c *client) isolator() isolator {
	if c.config.Isolation == isolationGVisor {
		return gvisorIsolation{c}
	}
	return bubblewrapIsolation{c}
}

// bubblewrapIsolation runs each command in a bubblewrap jail of its own,
// the instance's commands bound together by its cgroup.
type bubblewrapIsolation struct{ c *client }

func (b bubblewrapIsolation) runner(op string, inst provider.Instance, user jailfs.User, dir string) (runner, func(), error) {
	c := b.c
	if c.cgroups == nil {
		return c.jail(user, dir, nil), func() {}, nil
	}
	limits := bubblewrap.CgroupLimits{MemoryMB: c.config.memoryMB(), MaxProcesses: c.config.MaxProcesses, CPU: c.config.cpu()}
	group, leave, err := c.cgroups.Join(inst.ID, limits)
	if err != nil {
		return nil, nil, provider.Errorf(provider.ErrFailed, providerName, op, "instance %s: %v", inst.ID, err)
	}
	return c.jail(user, dir, group), leave, nil
}

func (b bubblewrapIsolation) freeze(id string, frozen bool) error {
	if b.c.cgroups == nil {
		return nil
	}
	return b.c.cgroups.Freeze(id, frozen)
}

func (b bubblewrapIsolation) canFreeze() bool { return b.c.cgroups != nil }

// destroy has nothing to end: a jail ends with its command.
func (b bubblewrapIsolation) destroy(context.Context, string) error { return nil }
