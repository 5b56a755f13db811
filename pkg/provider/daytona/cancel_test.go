package daytona_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// A command whose caller gives up leaves nothing running, whatever it
// started: a job in the background, a job in a session of its own (which
// neither the daemon's delete nor the command's group reaches once its
// parent is gone), cancelled at 1, 2 and 3 seconds, on a daemon with
// sessions and on one without.
func TestExecuteCancelledLeavesNothingRunning(t *testing.T) {
	forEachDialect(t, daytonatest.Options{}, func(t *testing.T, opts daytonatest.Options) {
		fake, client, inst := started(t, opts)
		for _, after := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second} {
			t.Run(after.String(), func(t *testing.T) {
				n := int(after / time.Second)
				command := fmt.Sprintf("sleep 17%[1]d1 & sh -c 'setsid sleep 17%[1]d2 &'; setsid sleep 17%[1]d3 & sleep 17%[1]d4", n)
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(after, cancel)
				_, err := client.Execute(ctx, inst, provider.ExecRequest{Command: command, Timeout: time.Minute})
				require.ErrorIs(t, err, context.Canceled)
				assert.Eventually(t, func() bool { return len(sleeps(fake.Processes(inst.ID))) == 0 }, 3*time.Second, 20*time.Millisecond,
					"nothing of the command runs: %q", sleeps(fake.Processes(inst.ID)))
			})
		}
	})
}

// sleeps are the test's own sleeps among processes.
func sleeps(processes []string) []string {
	var out []string
	for _, p := range processes {
		if strings.HasPrefix(p, "sleep 17") {
			out = append(out, p)
		}
	}
	return out
}
