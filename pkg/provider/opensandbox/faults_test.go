package opensandbox_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFaultBadKey(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: testKey})
	tests := []struct {
		name, key, code string
	}{
		{"wrong key", "not-the-key", "INVALID_API_KEY"},
		{"no key", "", "MISSING_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := openClient(t, testKind, fake.URL, tt.key)
			err := client.Probe(context.Background())
			require.ErrorIs(t, err, provider.ErrUnauthorized)
			assert.Contains(t, providerMessage(t, err), tt.code+": Authentication credentials are")
			_, err = client.Create(context.Background(), provider.Labels{})
			assert.ErrorIs(t, err, provider.ErrUnauthorized)
		})
	}
	assert.Empty(t, fake.Sandboxes(), "nothing was created with a bad key")
}

func TestFaultServerDown(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.Down()

	err := client.Probe(context.Background())
	assert.ErrorIs(t, err, provider.ErrUnreachable)
	assert.Contains(t, err.Error(), "connection refused")
	_, err = client.Reconnect(context.Background(), inst)
	assert.ErrorIs(t, err, provider.ErrUnreachable)
	_, err = client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	assert.ErrorIs(t, err, provider.ErrUnreachable)
	_, err = providertest.ReadAll(context.Background(), client, inst, "/workspace/x")
	assert.ErrorIs(t, err, provider.ErrUnreachable)
}

func TestFaultServerError(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	require.NoError(t, client.WriteFile(context.Background(), inst, "/workspace/x", []byte("x")))
	fake.Inject(opensandboxtest.OpList, opensandboxtest.Fault{Status: 500, Code: "DOCKER::SANDBOX_QUERY_FAILED",
		Message: "Failed to query sandbox containers: docker daemon is gone"})
	fake.Inject(opensandboxtest.OpGet, opensandboxtest.Fault{Status: 503})
	fake.Inject(opensandboxtest.OpCommand, opensandboxtest.Fault{Status: 500, Message: "error running commands fork failed"})
	fake.Inject(opensandboxtest.OpDownload, opensandboxtest.Fault{Status: 500})

	err := client.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Equal(t, "DOCKER::SANDBOX_QUERY_FAILED: Failed to query sandbox containers: docker daemon is gone", providerMessage(t, err))
	_, err = client.Reconnect(context.Background(), inst)
	assert.ErrorIs(t, err, provider.ErrFailed)
	_, err = client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Equal(t, "RUNTIME_ERROR: error running commands fork failed", providerMessage(t, err))
	_, err = providertest.ReadAll(context.Background(), client, inst, "/workspace/x")
	assert.ErrorIs(t, err, provider.ErrFailed)
}

func TestFaultMalformedJSON(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	for _, op := range []opensandboxtest.Op{opensandboxtest.OpList, opensandboxtest.OpCreate, opensandboxtest.OpGet,
		opensandboxtest.OpCommand, opensandboxtest.OpInfo, opensandboxtest.OpListDir} {
		fake.Inject(op, opensandboxtest.Fault{Malformed: true})
	}

	err := client.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, providerMessage(t, err), "malformed answer")
	_, err = client.Create(context.Background(), provider.Labels{})
	assert.ErrorIs(t, err, provider.ErrFailed)
	_, err = client.Reconnect(context.Background(), inst)
	assert.ErrorIs(t, err, provider.ErrFailed)
	_, err = client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, providerMessage(t, err), "malformed event")
	_, err = client.Stat(context.Background(), inst, "/workspace")
	assert.ErrorIs(t, err, provider.ErrFailed)
	_, err = client.ListFiles(context.Background(), inst, "/workspace", 100)
	assert.ErrorIs(t, err, provider.ErrFailed)
}

func TestFaultStreamCutMidway(t *testing.T) {
	for _, tt := range []struct {
		name      string
		configure func(*opensandbox.Config)
	}{
		{"through the server proxy", func(*opensandbox.Config) {}},
		{"direct to execd", direct},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake, client := setup(t, opensandboxtest.Options{}, tt.configure)
			inst := create(t, client)
			fake.Inject(opensandboxtest.OpCommand, opensandboxtest.Fault{CutStream: true})
			var seen []string
			_, err := client.Execute(context.Background(), inst, provider.ExecRequest{
				Command: "echo first; sleep 1; touch /workspace/late", Timeout: 10 * time.Second,
				OnOutput: func(_, text string) { seen = append(seen, text) }})
			require.ErrorIs(t, err, provider.ErrFailed)
			assert.Contains(t, err.Error(), "ended before the command did")
			assert.Equal(t, []string{"first\n"}, seen, "output up to the cut was relayed")
			assert.Equal(t, 1, fake.Calls(opensandboxtest.OpInterrupt), "the command left behind is interrupted")
			time.Sleep(1500 * time.Millisecond)
			_, err = client.Stat(context.Background(), inst, "/workspace/late")
			assert.ErrorIs(t, err, provider.ErrNotFound, "it did not run on")

			fake.ClearFaults()
			assert.Equal(t, "fine\n", run(t, client, inst, "echo fine").Output, "the instance still works")
		})
	}
}

func TestFaultInstanceNeverRunning(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	fake.Inject(opensandboxtest.OpCreate, opensandboxtest.Fault{NeverReady: true})
	client := openClient(t, opensandbox.Kind{ReadyTimeout: time.Second}, fake.URL, "")

	start := time.Now()
	_, err := client.Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrTimeout)
	assert.Less(t, time.Since(start), 5*time.Second, "the wait is bounded")
	assert.Contains(t, err.Error(), "was not ready within 1s")
	assert.Contains(t, err.Error(), "Pending")
	assert.Empty(t, fake.Sandboxes(), "an instance that never got ready is destroyed")
	assert.Positive(t, fake.Calls(opensandboxtest.OpGet), "the client polled the sandbox")
}

func TestFaultExecdNeverAnswers(t *testing.T) {
	for _, tt := range []struct {
		name      string
		configure func(*opensandbox.Config)
	}{
		{"through the server proxy", func(*opensandbox.Config) {}},
		{"direct to execd", direct},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := opensandboxtest.New(t, opensandboxtest.Options{})
			fake.Inject(opensandboxtest.OpPing, opensandboxtest.Fault{NeverReady: true})
			client := openClient(t, opensandbox.Kind{ReadyTimeout: time.Second}, fake.URL, "", tt.configure)

			start := time.Now()
			_, err := client.Create(context.Background(), provider.Labels{})
			require.ErrorIs(t, err, provider.ErrTimeout)
			assert.Less(t, time.Since(start), 5*time.Second, "the wait is bounded")
			assert.Contains(t, err.Error(), "its execd does not answer")
			assert.Greater(t, fake.Calls(opensandboxtest.OpPing), 1, "the client kept polling /ping")
			assert.Empty(t, fake.Sandboxes(), "an instance that never got ready is destroyed")
		})
	}
}

func TestFaultSlowServerBeyondTheTimeout(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	client := openClient(t, opensandbox.Kind{ReadyTimeout: 10 * time.Second, RequestTimeout: 300 * time.Millisecond}, fake.URL, "")
	inst := create(t, client)
	require.NoError(t, client.WriteFile(context.Background(), inst, "/workspace/x", []byte("x")))
	for _, op := range []opensandboxtest.Op{opensandboxtest.OpList, opensandboxtest.OpGet, opensandboxtest.OpDownload} {
		fake.Inject(op, opensandboxtest.Fault{Delay: time.Minute})
	}

	start := time.Now()
	err := client.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrTimeout)
	assert.Less(t, time.Since(start), 3*time.Second)
	_, err = client.Reconnect(context.Background(), inst)
	assert.ErrorIs(t, err, provider.ErrTimeout)
	_, err = providertest.ReadAll(context.Background(), client, inst, "/workspace/x")
	assert.ErrorIs(t, err, provider.ErrTimeout)
	assert.Equal(t, "network", provider.Reason(err))
}

// A command stream that never starts is ended by the client's own timeout:
// the result is the timeout's, not an error.
func TestFaultSlowCommandBeyondItsTimeout(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.Inject(opensandboxtest.OpCommand, opensandboxtest.Fault{Delay: time.Minute})

	start := time.Now()
	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "echo hi", Timeout: time.Second})
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.True(t, res.TimedOut)
	assert.Equal(t, provider.TimeoutExitCode, res.ExitCode)
	assert.Equal(t, provider.TimeoutNotice(time.Second), res.Output)
}

func TestFaultCallerGivesUp(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	_, err := client.Execute(ctx, inst, provider.ExecRequest{Command: "echo started; sleep 60", Timeout: time.Minute})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpInterrupt), "the abandoned command was interrupted")
	assert.Equal(t, "ok\n", run(t, client, inst, "echo ok").Output)
}

// Only the server's "no such sandbox" means gone: a missing route (a wrong
// url) is a configuration problem, and a pod still without its IP a failure
// to try again.
func TestFaultNotFoundIsNotAlwaysGone(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	wrong := openClient(t, testKind, fake.URL+"/not-the-api", testKey)
	err := wrong.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "the url does not lead to an OpenSandbox lifecycle API")

	inst := create(t, client)
	fake.Inject(opensandboxtest.OpEndpoint, opensandboxtest.Fault{Status: 404, Code: "KUBERNETES::POD_IP_NOT_AVAILABLE",
		Message: "Pod IP is not yet available."})
	_, err = client.Reconnect(context.Background(), provider.Instance{ID: inst.ID}) // saved without its endpoint
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.NotErrorIs(t, err, provider.ErrGone)

	fake.ClearFaults()
	fake.Expire(inst.ID)
	_, err = client.Reconnect(context.Background(), inst)
	assert.ErrorIs(t, err, provider.ErrGone, "the server's own SANDBOX_NOT_FOUND is gone")
}

// A download that trickles in past the request timeout is a timeout, and
// says so while it is being read.
func TestFaultSlowDownload(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	require.NoError(t, client.WriteFile(context.Background(), inst, "big.txt", bytes.Repeat([]byte("x"), 4096)))
	fake.Inject(opensandboxtest.OpDownload, opensandboxtest.Fault{SlowBody: 50 * time.Millisecond})

	impatient := openClient(t, opensandbox.Kind{RequestTimeout: 300 * time.Millisecond}, fake.URL, testKey)
	began := time.Now()
	_, err := providertest.ReadAll(context.Background(), impatient, inst, "big.txt")
	require.ErrorIs(t, err, provider.ErrTimeout)
	assert.Less(t, time.Since(began), 3*time.Second, "the request timeout bounds the reading")
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpDownload))
}
