package providertest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// States puts a provider's instances, through its fake or its host, in the
// states the real provider leaves them in by itself.
type States interface {
	// Pause stops the instance with its files, as the provider's own pause
	// or idle stop does.
	Pause(t *testing.T, id string)
	// Exit ends the instance's machine for good while the provider keeps
	// it, as a host or runtime restart does.
	Exit(t *testing.T, id string)
	// RefuseCreates makes the provider refuse every create until t ends,
	// as the real one refuses when it cannot make an instance (a quota, a
	// runtime that cannot start it, a host without what it needs).
	RefuseCreates(t *testing.T) Refusal
}

// Refusal is what a refused create must read as.
type Refusal struct {
	// Kind is the provider error's kind (ErrQuota, ErrFailed, …).
	Kind error
	// Words are the provider's own words, which the error carries.
	Words string
	// Asked counts the times the provider has been asked to make (or
	// start) an instance; nil where the provider is the host itself, which
	// the client asks nothing.
	Asked func() int
}

// RunStates checks what a run relies on around the happy path: an
// instance that left its running state by itself (paused: running again
// after Reconnect, with its files; exited: ErrGone, so that the run
// service replaces it), a refused create (an error at once, in the
// provider's words), and commands as users write them (a job left in the
// background, a command cancelled midway, bash's features). d is the
// provider's descriptor: a command is cancelled only where it declares
// Interrupt, and bash is asked for only where its Shell is bash.
func RunStates(t *testing.T, d provider.Descriptor, client provider.Client, states States) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	create := func(t *testing.T) provider.Instance {
		inst, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1"})
		require.NoError(t, err, "create")
		t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
		return inst
	}

	t.Run("paused is resumed with its files", func(t *testing.T) {
		inst := create(t)
		run(ctx, t, client, inst, "echo still here > kept.txt")
		require.NoError(t, client.Persist(ctx, inst), "a run ends by persisting")
		states.Pause(t, inst.ID)
		again, err := client.Reconnect(ctx, inst)
		require.NoError(t, err)
		assert.Equal(t, "still here\n", run(ctx, t, client, again, "cat kept.txt").Output)
	})
	t.Run("exited is gone", func(t *testing.T) {
		inst := create(t)
		states.Exit(t, inst.ID)
		_, err := client.Reconnect(ctx, inst)
		require.ErrorIs(t, err, provider.ErrGone, "an exited instance is replaced, not kept")
	})
	t.Run("a refused create is a clear error at once", func(t *testing.T) {
		refusal := states.RefuseCreates(t)
		asked := 0
		if refusal.Asked != nil {
			asked = refusal.Asked()
		}
		_, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-refused"})
		require.ErrorIs(t, err, refusal.Kind)
		var perr *provider.Error
		require.True(t, errors.As(err, &perr), "a provider error: %v", err)
		assert.Contains(t, err.Error(), refusal.Words, "the provider's words")
		if refusal.Asked != nil {
			assert.Equal(t, 1, refusal.Asked()-asked, "a refusal is final: asked once, not again until a deadline")
		}
	})

	t.Run("commands", func(t *testing.T) {
		inst := create(t)
		t.Run("a job left in the background does not hold the command", func(t *testing.T) {
			res, err := client.Execute(ctx, inst, provider.ExecRequest{Command: "sleep 60 & echo started", Timeout: 20 * time.Second})
			require.NoError(t, err)
			assert.False(t, res.TimedOut, "the command returns when its shell does")
			assert.Equal(t, 0, res.ExitCode)
			assert.Equal(t, "started\n", res.Output)
		})
		if d.Capabilities.Has(provider.Interrupt) {
			t.Run("a cancelled command is killed", func(t *testing.T) { testCancelled(ctx, t, client, inst) })
		}
		if d.RunsBash() {
			t.Run("bash features work", func(t *testing.T) {
				res := run(ctx, t, client, inst, bashFeatures)
				assert.Equal(t, 0, res.ExitCode, "output: %q", res.Output)
				assert.Equal(t, "pipefail=1\nn=2 second=b c\nbonono\nmatched\nsourced\n", res.Output)
			})
		}
	})
}

// bashFeatures uses what sh (dash) does not have.
const bashFeatures = `set -o pipefail
false | true; echo "pipefail=$?"
arr=(a 'b c'); echo "n=${#arr[@]} second=${arr[1]}"
v=banana; echo "${v//a/o}"
[[ $v == ban* ]] && echo matched
echo 'x=sourced' > lib.sh && source ./lib.sh && echo "$x"`

// testCancelled cancels a command once it has started, then watches for
// the file it would have written two seconds in: a command left running
// writes it.
func testCancelled(ctx context.Context, t *testing.T, c provider.Client, inst provider.Instance) {
	cmdCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	started := make(chan struct{})
	var once sync.Once
	_, _ = c.Execute(cmdCtx, inst, provider.ExecRequest{
		Command: "echo started; sleep 2 && echo late > late.txt", Timeout: time.Minute,
		OnOutput: func(_, text string) {
			if strings.Contains(text, "started") {
				once.Do(func() { close(started); cancel() })
			}
		}})
	select {
	case <-started:
	default:
		t.Fatal("the command never said it started")
	}
	late := inst.WorkDir + "/late.txt"
	for waited := time.Duration(0); waited <= 3*time.Second; waited += 250 * time.Millisecond {
		_, err := c.Stat(ctx, inst, late)
		require.ErrorIs(t, err, provider.ErrNotFound, "a cancelled command wrote %s", late)
		time.Sleep(250 * time.Millisecond)
	}
	assert.Equal(t, "ok\n", run(ctx, t, c, inst, "echo ok").Output, "the instance works after a cancel")
}
