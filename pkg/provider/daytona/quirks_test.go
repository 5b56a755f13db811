package daytona_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each test here names one of Daytona's quirks the client must honour.

func TestQuirkCreateAnswersWhileCreating(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 3})
	client := openClient(t, fake, daytonatest.DefaultKey)
	inst, err := client.Create(context.Background(), provider.Labels{Workspace: "ws"})
	require.NoError(t, err)
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "started", state, "create waits until the sandbox has started")
	assert.GreaterOrEqual(t, fake.Calls(daytonatest.OpGetSandbox), 3, "the client polled past 'creating'")
	assert.Equal(t, daytonatest.WorkDir, inst.WorkDir, "the work dir comes from the toolbox")
	assert.JSONEq(t, `{"toolboxProxyUrl":"`+fake.ToolboxProxyURL()+`"}`, string(inst.State))
}

func TestQuirkListAcceptsBothShapes(t *testing.T) {
	for _, bare := range []bool{false, true} {
		t.Run(map[bool]string{false: "items and nextCursor", true: "bare array"}[bare], func(t *testing.T) {
			fake := daytonatest.Start(t, daytonatest.Options{BareList: bare})
			// The create call reaches Daytona but its answer is lost: the
			// client finds its sandbox by listing with its creation label.
			fake.Inject(daytonatest.OpCreateSandbox, daytonatest.Fault{Status: http.StatusBadGateway, Lost: true})
			client := openClient(t, fake, daytonatest.DefaultKey)
			inst, err := client.Create(context.Background(), provider.Labels{Thread: "th"})
			require.NoError(t, err)
			assert.Equal(t, []string{inst.ID}, fake.Sandboxes(), "the lost sandbox was adopted, not made twice")
			assert.Equal(t, 1, fake.Calls(daytonatest.OpListSandboxes))
		})
	}
}

func TestQuirkRateLimitHonoursRetryAfter(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	fake.RateLimit(daytonatest.OpGetSandbox, 2, time.Second)
	fake.ResetCalls()
	began := time.Now()
	_, err := client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(began), 2*time.Second, "it waited as Retry-After-authenticated asked, twice")
	assert.Equal(t, 3, fake.Calls(daytonatest.OpGetSandbox))
}

func TestQuirkRateLimitBeyondTheBoundFails(t *testing.T) {
	fake, _, inst := started(t, daytonatest.Options{})
	waits := quickWaits
	waits.Retry = time.Second
	client := openClientWaits(t, fake, daytonatest.DefaultKey, waits)
	fake.RateLimit(daytonatest.OpGetSandbox, 1, time.Minute)
	began := time.Now()
	_, err := client.Reconnect(context.Background(), inst)
	require.Error(t, err)
	assert.Less(t, time.Since(began), 5*time.Second, "no wait that cannot end within the bound")
	assert.ErrorIs(t, err, provider.ErrRateLimited, "named as a rate limit, for the caller to relay")
	var pe *provider.Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, time.Minute, pe.RetryAfter)
	assert.Contains(t, err.Error(), "ThrottlerException: Too Many Requests")
	assert.Contains(t, err.Error(), "retry after 1m0s")
}

func TestQuirkStateChangeInProgressRetried(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	require.NoError(t, fake.Stop(inst.ID))
	fake.StateChangeStorm(daytonatest.OpStartSandbox, 4)
	_, err := client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, 5, fake.Calls(daytonatest.OpStartSandbox), "four 409s, then the start")
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "started", state)
}

func TestQuirkStateChangeStormBeyondTheBoundFails(t *testing.T) {
	fake, _, inst := started(t, daytonatest.Options{})
	waits := quickWaits
	waits.Retry = 300 * time.Millisecond
	client := openClientWaits(t, fake, daytonatest.DefaultKey, waits)
	require.NoError(t, fake.Stop(inst.ID))
	fake.StateChangeStorm(daytonatest.OpStartSandbox, 1000)
	_, err := client.Reconnect(context.Background(), inst)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 409 Conflict: Sandbox state change in progress")
}

func TestQuirkToolbox401ForDestroyedSandboxIsGone(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	require.NoError(t, fake.Destroy(inst.ID))
	fake.ResetCalls()
	_, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: time.Minute})
	require.ErrorIs(t, err, provider.ErrGone, "the toolbox's 401 is not taken for a bad key")
	assert.NotErrorIs(t, err, provider.ErrUnauthorized)
	assert.Equal(t, 1, fake.Calls(daytonatest.OpCreateSession))
	assert.Equal(t, 1, fake.Calls(daytonatest.OpGetSandbox), "the control plane was asked why")
	assert.Contains(t, err.Error(), "not found")
}

func TestQuirkToolbox401WithABadKeyIsUnauthorized(t *testing.T) {
	fake, _, inst := started(t, daytonatest.Options{})
	client := openClient(t, fake, "not-a-key")
	_, err := providertest.ReadAll(context.Background(), client, inst, "/home/daytona/x")
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Contains(t, err.Error(), "Invalid credentials", "the control plane's own words")
}

func TestQuirkToolboxOfStoppedSandboxAnswers400(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{Transition: 2})
	require.NoError(t, client.WriteFile(context.Background(), inst, "/home/daytona/kept.txt", []byte("kept")))
	require.NoError(t, fake.Stop(inst.ID))
	fake.ResetCalls()
	res := run(t, client, inst, "cat kept.txt")
	assert.Equal(t, "kept", res.Output, "the stopped sandbox was started again, its files intact")
	assert.Equal(t, 2, fake.Calls(daytonatest.OpCreateSession), "refused with 400, then sent again")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpSessionExecuteCommand))
	assert.Equal(t, 1, fake.Calls(daytonatest.OpStartSandbox))
}

func TestQuirkToolbox404WhileDestroyingIsGone(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	require.NoError(t, fake.Transit(inst.ID, "destroyed", "destroying", "destroying", "destroyed"))
	_, err := client.Stat(context.Background(), inst, "/home/daytona")
	require.ErrorIs(t, err, provider.ErrGone)
	assert.Contains(t, err.Error(), "sandbox container not found", "the runner's message")
}

func TestQuirkDeleteAnswers200AndIsWaitedFor(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{Transition: 2})
	fake.ResetCalls()
	require.NoError(t, client.Destroy(context.Background(), inst))
	_, exists := fake.State(inst.ID)
	assert.False(t, exists, "Destroy returns once Daytona no longer has the sandbox")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeleteSandbox))
	assert.GreaterOrEqual(t, fake.Calls(daytonatest.OpGetSandbox), 2, "polled through 'destroying'")
	require.NoError(t, client.Destroy(context.Background(), inst), "the second delete's 404 is fine")
}

func TestQuirkDeleteWhileDestroyingIs409(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{Transition: 2})
	require.NoError(t, fake.Transit(inst.ID, "destroyed", "destroying", "destroyed"))
	fake.ResetCalls()
	require.NoError(t, client.Destroy(context.Background(), inst))
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeleteSandbox), "a 409 while destroying is not sent again")
	_, exists := fake.State(inst.ID)
	assert.False(t, exists)
}

func TestQuirkStopOnStoppedSandboxIs400(t *testing.T) {
	// The client never stops a sandbox; reconnect starts a stopped one
	// instead of stopping it again.
	fake, client, inst := started(t, daytonatest.Options{})
	require.NoError(t, fake.Stop(inst.ID))
	fake.ResetCalls()
	_, err := client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Zero(t, fake.Calls(daytonatest.OpStopSandbox))
	assert.Equal(t, 1, fake.Calls(daytonatest.OpStartSandbox))
}

func TestQuirkExecuteTimeoutIs408(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{NoSessions: true})
	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{
		Command: "echo before; echo oops >&2; sleep 30; echo after", Timeout: 3 * time.Second}) // time for a loaded machine's jail to start
	require.NoError(t, err, "a timeout is a result")
	assert.True(t, res.TimedOut)
	assert.Equal(t, provider.TimeoutExitCode, res.ExitCode)
	assert.Equal(t, "before\noops\n"+provider.TimeoutNotice(3*time.Second), res.Output, "the output before the timeout is kept")
	executed := fake.Executed()
	require.Len(t, executed, 2, "the command, then one short command fetching its output")
	assert.Equal(t, 3, executed[0].Timeout)
	assert.Contains(t, sentScript(t, executed[1].Command), "head -c")
	after := run(t, client, inst, "ls -A /tmp")
	assert.Equal(t, 1, strings.Count(after.Output, ".auxilia-exec-"), "only the listing command's own folder is in /tmp: %q", after.Output)
}

func TestQuirkExecuteAlwaysSendsATimeoutAndTheWorkDir(t *testing.T) {
	fake, _, inst := started(t, daytonatest.Options{NoSessions: true})
	client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) { c.Timeout = 42 })
	_, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true"})
	require.NoError(t, err)
	_, err = client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 1500 * time.Millisecond})
	require.NoError(t, err)
	executed := fake.Executed()
	require.Len(t, executed, 2)
	assert.Equal(t, 42, executed[0].Timeout, "no timeout asked: the sandbox's configured one")
	assert.Equal(t, 2, executed[1].Timeout, "whole seconds, rounded up")
	assert.Equal(t, inst.WorkDir, executed[0].Cwd)
}

func TestQuirkFileErrorsWithEmptyBodies(t *testing.T) {
	_, client, inst := started(t, daytonatest.Options{})
	ctx := context.Background()
	missing := "/home/daytona/no/such.txt"
	_, err := client.Stat(ctx, inst, missing)
	assert.ErrorIs(t, err, provider.ErrNotFound)
	_, err = providertest.ReadAll(ctx, client, inst, missing)
	assert.ErrorIs(t, err, provider.ErrNotFound)
	_, err = client.ListFiles(ctx, inst, missing, 100)
	assert.ErrorIs(t, err, provider.ErrNotFound)
	err = client.RemoveFile(ctx, inst, missing)
	assert.ErrorIs(t, err, provider.ErrNotFound)
	assert.Contains(t, err.Error(), missing+": HTTP 404 Not Found (no message)")

	_, err = providertest.ReadAll(ctx, client, inst, "/home/daytona")
	require.Error(t, err, "a directory cannot be downloaded")
	assert.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "HTTP 400 Bad Request")
}

func TestQuirkUploadOnOlderDaemonsNeedsTheFolder(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{UploadNeedsParent: true})
	fake.ResetCalls()
	p := "/home/daytona/deep/er/file.txt"
	require.NoError(t, client.WriteFile(context.Background(), inst, p, []byte("x")))
	got, err := providertest.ReadAll(context.Background(), client, inst, p)
	require.NoError(t, err)
	assert.Equal(t, "x", string(got))
	assert.Equal(t, 2, fake.Calls(daytonatest.OpUploadFile), "refused, then sent again")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpCreateFolder))
}

func TestQuirkUploadMakesParentsOnCurrentDaemons(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	fake.ResetCalls()
	require.NoError(t, client.WriteFile(context.Background(), inst, "/home/daytona/a/b/c.txt", []byte("x")))
	assert.Equal(t, map[string]int{daytonatest.OpUploadFile: 1}, fake.AllCalls(), "one call per write")
}

func TestQuirkRemoveEmptyDirectoryNeedsRecursive(t *testing.T) {
	_, client, inst := started(t, daytonatest.Options{})
	ctx := context.Background()
	run(t, client, inst, "mkdir -p empty full && touch full/f")
	require.NoError(t, client.RemoveFile(ctx, inst, "/home/daytona/empty"))
	_, err := client.Stat(ctx, inst, "/home/daytona/empty")
	assert.ErrorIs(t, err, provider.ErrNotFound)
	err = client.RemoveFile(ctx, inst, "/home/daytona/full")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not empty")
	_, err = client.Stat(ctx, inst, "/home/daytona/full/f")
	assert.NoError(t, err, "a directory that is not empty is left alone")
}

func TestQuirkErrorsCarryDaytonasMessage(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) { c.Target = "mars" })
	_, err := client.Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	var pe *provider.Error
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, "daytona", pe.Provider)
	assert.Equal(t, "create", pe.Op)
	assert.Equal(t, "HTTP 404 Not Found: Region not found", pe.Message)
	assert.True(t, strings.HasPrefix(err.Error(), "daytona create: "))
}
