package daytona_test

import (
	"context"
	"net"
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

func TestProbe(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	require.NoError(t, openClient(t, fake, daytonatest.DefaultKey).Probe(context.Background()))
	assert.Equal(t, 1, fake.TotalCalls(), "one cheap call")
}

func TestFaultBadKey(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	err := openClient(t, fake, "dtn_wrong").Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Contains(t, err.Error(), "HTTP 401 Unauthorized: Invalid credentials")
	assert.Equal(t, "auth", provider.Reason(err))
}

func TestFaultExpiredKey(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.AddKey("dtn_soon_old", time.Now().Add(time.Hour))
	client := openClient(t, fake, "dtn_soon_old")
	inst, err := client.Create(context.Background(), provider.Labels{})
	require.NoError(t, err)
	fake.ExpireKey("dtn_soon_old")
	require.ErrorIs(t, client.Probe(context.Background()), provider.ErrUnauthorized)
	_, err = client.Reconnect(context.Background(), inst)
	require.ErrorIs(t, err, provider.ErrUnauthorized, "an expired key is no reason to call the sandbox gone")
	_, err = client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: time.Minute})
	require.ErrorIs(t, err, provider.ErrUnauthorized, "the toolbox's 401 with an expired key is a bad key")
}

func TestFaultUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c, err := daytona.Kind{Waits: quickWaits}.Open(provider.Settings{URL: "http://" + addr + "/api", Secret: "k", Config: daytona.DefaultConfig()})
	require.NoError(t, err)
	err = c.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrUnreachable)
	assert.Contains(t, err.Error(), "connection refused")
}

func TestFaultURLWithoutAPIPrefix(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	c, err := daytona.Kind{Waits: quickWaits}.Open(provider.Settings{
		URL: strings.TrimSuffix(fake.URL(), "/api"), Secret: daytonatest.DefaultKey, Config: daytona.DefaultConfig()})
	require.NoError(t, err)
	defer c.(*daytona.Client).CloseIdleConnections()
	err = c.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrInvalidConfig, "Daytona's dashboard page is not its API")
	assert.Contains(t, err.Error(), "/api")
}

func TestFaultServerError(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.Inject(daytonatest.OpGetCurrentAPIKey, daytonatest.Fault{Status: http.StatusInternalServerError, Message: "An unexpected error occurred."})
	err := openClient(t, fake, daytonatest.DefaultKey).Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "An unexpected error occurred.")
}

func TestFault429OnCreate(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.RateLimit(daytonatest.OpCreateSandbox, 1, time.Second)
	_, err := openClient(t, fake, daytonatest.DefaultKey).Create(context.Background(), provider.Labels{})
	require.NoError(t, err)
	assert.Len(t, fake.Sandboxes(), 1, "a 429 made nothing: sending again makes one sandbox")
}

func TestFault409StormOnDestroy(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	fake.StateChangeStorm(daytonatest.OpDeleteSandbox, 3)
	require.NoError(t, client.Destroy(context.Background(), inst))
	assert.Equal(t, 4, fake.Calls(daytonatest.OpDeleteSandbox))
	_, exists := fake.State(inst.ID)
	assert.False(t, exists)
}

func TestFaultSandboxStoppedBetweenCalls(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{Transition: 1})
	ctx := context.Background()
	require.NoError(t, client.WriteFile(ctx, inst, "notes.txt", []byte("before the stop")))
	fake.Advance(16 * time.Minute) // past the default auto-stop of 15 minutes
	state, _ := fake.State(inst.ID)
	require.Contains(t, []string{"stopping", "stopped"}, state)
	got, err := providertest.ReadAll(ctx, client, inst, "notes.txt")
	require.NoError(t, err, "the next call starts the sandbox again")
	assert.Equal(t, "before the stop", string(got))
	state, _ = fake.State(inst.ID)
	assert.Equal(t, "started", state)
}

func TestFaultArchivedSandboxStartedAgainWithFilesIntact(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{Transition: 2})
	ctx := context.Background()
	require.NoError(t, client.WriteFile(ctx, inst, "/home/daytona/work/data.txt", []byte("archived with me")))
	require.NoError(t, fake.Archive(inst.ID))
	fake.ResetCalls()
	again, err := client.Reconnect(ctx, inst)
	require.NoError(t, err)
	assert.Equal(t, 1, fake.Calls(daytonatest.OpStartSandbox), "started once, though it reads 'archived' while restoring")
	assert.Equal(t, inst.WorkDir, again.WorkDir)
	assert.Equal(t, "archived with me", run(t, client, again, "cat work/data.txt").Output)
}

func TestFaultCreateFailsAndLeavesNothing(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.Inject(daytonatest.OpGetWorkDir, daytonatest.Fault{Status: http.StatusInternalServerError, Message: "daemon broke"})
	_, err := openClient(t, fake, daytonatest.DefaultKey).Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "daemon broke")
	for _, id := range fake.Sandboxes() {
		state, _ := fake.State(id)
		assert.Equal(t, "destroying", state, "the sandbox that could not be made ready is deleted")
	}
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeleteSandbox))
}

func TestFaultSandboxErrorsWhileCreated(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 1000})
	go func() {
		for {
			if ids := fake.Sandboxes(); len(ids) > 0 {
				_ = fake.Break(ids[0], "no capacity left in region us")
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := openClient(t, fake, daytonatest.DefaultKey).Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrFailed, "a sandbox that fails while made is a failed create, not a gone one")
	assert.Contains(t, err.Error(), "no capacity left in region us")
}

func TestFaultContextCancelled(t *testing.T) {
	_, client, inst := started(t, daytonatest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err := client.Execute(ctx, inst, provider.ExecRequest{Command: "sleep 20", Timeout: time.Minute})
	require.ErrorIs(t, err, context.Canceled)
}
