package daytona_test

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// startJob opens a terminal on a new sandbox and starts a job in it,
// returning the job's pid.
func startJob(t *testing.T, opts daytonatest.Options) (*daytonatest.Server, *daytona.Client, provider.Instance, *screen, int) {
	t.Helper()
	fake, client, inst := started(t, opts)
	pty, err := client.OpenTerminal(context.Background(), inst, provider.DefaultTermSize)
	require.NoError(t, err)
	s := watch(t, pty)
	s.typeIn("sleep 1000 & echo pid=$!=\n", "")
	var found []string
	require.Eventually(t, func() bool {
		found = regexp.MustCompile(`pid=([0-9]+)=`).FindStringSubmatch(s.text())
		return found != nil
	}, 10*time.Second, 10*time.Millisecond, "%q", s.text())
	pid, err := strconv.Atoi(found[1])
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, 0), "the job runs")
	return fake, client, inst, s, pid
}

// A sandbox Daytona can pause (a VM) is paused with its memory, through
// "pausing" to "paused": a job started before the pause still runs after
// the resume, and the shell that started it still answers.
func TestPauseKeepsTheMemoryWhereDaytonaPauses(t *testing.T) {
	ctx := context.Background()
	fake, client, inst, s, pid := startJob(t, daytonatest.Options{SandboxClass: "linux-vm", Transition: 1})

	fake.ResetCalls()
	require.NoError(t, client.Pause(ctx, inst))
	assert.Equal(t, 1, fake.Calls(daytonatest.OpPauseSandbox))
	assert.Zero(t, fake.Calls(daytonatest.OpStopSandbox), "no stop where Daytona pauses")
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "paused", state)
	assert.NoError(t, syscall.Kill(pid, 0), "the job is kept while paused")

	again, err := client.Reconnect(ctx, inst)
	require.NoError(t, err)
	state, _ = fake.State(again.ID)
	assert.Equal(t, "started", state)
	assert.NoError(t, syscall.Kill(pid, 0), "the job runs after the resume")
	s.typeIn("echo back=$((40+2))\n", "back=42")
	assert.Contains(t, string(again.State), `"pausedWith":"memory"`)
}

// A container cannot be paused (Daytona answers 422): it is stopped, with
// its files and without its memory, and the instance's state says so.
func TestPauseOfAContainerStopsIt(t *testing.T) {
	ctx := context.Background()
	fake, client, inst, s, pid := startJob(t, daytonatest.Options{})

	require.NoError(t, client.Pause(ctx, inst))
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "stopped", state)
	assert.ErrorIs(t, s.ended(), io.EOF, "stopping ends the terminal")
	require.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, 5*time.Second, 10*time.Millisecond, "the job ends with the stop")

	again, err := client.Reconnect(ctx, inst)
	require.NoError(t, err)
	assert.Contains(t, string(again.State), `"pausedWith":"files"`)
}

// An API without POST /sandbox/{id}/pause (before v0.190) answers NestJS's
// 404: the client stops instead, and asks no more.
func TestPauseWithoutThePauseRouteStops(t *testing.T) {
	ctx := context.Background()
	fake, client, inst := started(t, daytonatest.Options{NoPause: true, SandboxClass: "linux-vm"})
	other, err := client.Create(ctx, provider.Labels{})
	require.NoError(t, err)

	fake.ResetCalls()
	require.NoError(t, client.Pause(ctx, inst))
	assert.Equal(t, map[string]int{daytonatest.OpGetSandbox: 1, daytonatest.OpOther: 1, daytonatest.OpStopSandbox: 1}, fake.AllCalls(),
		"the fake counts a route it does not have as other")
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "stopped", state)

	fake.ResetCalls()
	require.NoError(t, client.Pause(ctx, other))
	assert.Equal(t, map[string]int{daytonatest.OpGetSandbox: 1, daytonatest.OpStopSandbox: 1}, fake.AllCalls(), "the missing route is remembered")

	_, err = client.Reconnect(ctx, inst)
	require.NoError(t, err)
}
