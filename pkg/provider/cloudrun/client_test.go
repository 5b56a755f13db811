package cloudrun

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/gateway/gatewaytest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConformance(t *testing.T) {
	gcs := gatewaytest.NewGCS(t)
	g := gatewaytest.Start(t, gcs)
	t.Run("with a snapshot bucket", func(t *testing.T) {
		providertest.Run(t, open(t, g.URL, gatewaytest.Secret, withBucket))
	})
	t.Run("without a bucket", func(t *testing.T) {
		providertest.Run(t, open(t, g.URL, gatewaytest.Secret))
	})
}

func TestThreadSurvivesItsSandboxBeingDeleted(t *testing.T) {
	ctx := context.Background()
	gcs := gatewaytest.NewGCS(t)
	g := gatewaytest.Start(t, gcs)
	c := open(t, g.URL, gatewaytest.Secret, withBucket, func(c *Config) { c.SnapshotPrefix = "threads/" })

	inst, err := c.Create(ctx, provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.NoError(t, err)
	require.NoError(t, c.WriteFile(ctx, inst, "/workspace/notes/plan.md", []byte("step one\n")))
	res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: "mkdir -p data && seq 3 > data/n.txt && ln -s data/n.txt n", Timeout: time.Minute})
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, res.Output)
	require.NoError(t, c.Persist(ctx, inst), "the run ends")
	_, stored := gcs.Object(gatewaytest.Bucket, "threads/"+inst.ID+".tar")
	require.True(t, stored, "the snapshot is in the bucket")

	g.Delete(t, inst.ID)

	again, err := c.Reconnect(ctx, inst)
	require.NoError(t, err, "the next run brings the sandbox back from its snapshot")
	assert.Equal(t, inst.ID, again.ID)
	assert.Equal(t, "/workspace", again.WorkDir)
	got, err := providertest.ReadAll(ctx, c, again, "/workspace/notes/plan.md")
	require.NoError(t, err)
	assert.Equal(t, "step one\n", string(got))
	res, err = c.Execute(ctx, again, provider.ExecRequest{Command: "cat n && touch new", Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, "1\n2\n3\n", res.Output, "links and files made by commands are back, and the sandbox is writable")

	t.Run("the gateway itself restarts", func(t *testing.T) {
		require.NoError(t, c.Persist(ctx, again))
		g.Stop(t)
		fresh := gatewaytest.Start(t, gcs)
		c2 := open(t, fresh.URL, gatewaytest.Secret, withBucket, func(c *Config) { c.SnapshotPrefix = "threads/" })
		back, err := c2.Reconnect(ctx, again)
		require.NoError(t, err)
		assert.Equal(t, inst.ID, back.ID)
		info, err := c2.Stat(ctx, back, "/workspace/new")
		require.NoError(t, err)
		assert.False(t, info.Dir)
		require.NoError(t, c2.Destroy(ctx, back))
		_, stored := gcs.Object(gatewaytest.Bucket, "threads/"+inst.ID+".tar")
		assert.False(t, stored, "destroying a thread's sandbox deletes its snapshot")
		_, err = c2.Reconnect(ctx, back)
		assert.ErrorIs(t, err, provider.ErrGone)
	})
}

func TestReconnectWithoutASnapshot(t *testing.T) {
	ctx := context.Background()
	gcs := gatewaytest.NewGCS(t)
	g := gatewaytest.Start(t, gcs)
	for name, edit := range map[string]func(*Config){"no bucket": func(*Config) {}, "bucket but never persisted": withBucket} {
		t.Run(name, func(t *testing.T) {
			c := open(t, g.URL, gatewaytest.Secret, edit)
			inst, err := c.Create(ctx, provider.Labels{Thread: "th"})
			require.NoError(t, err)
			g.Delete(t, inst.ID)
			_, err = c.Reconnect(ctx, inst)
			require.ErrorIs(t, err, provider.ErrGone, "the thread gets a fresh sandbox")
			assert.ErrorIs(t, c.KeepAlive(ctx, inst), provider.ErrGone)
			assert.ErrorIs(t, c.Persist(ctx, inst), errorKindFor(name))
		})
	}
}

// errorKindFor is what Persist of a gone sandbox says: nothing to do without a bucket.
func errorKindFor(name string) error {
	if name == "no bucket" {
		return nil
	}
	return provider.ErrGone
}

func TestProbe(t *testing.T) {
	ctx := context.Background()
	gcs := gatewaytest.NewGCS(t)
	g := gatewaytest.Start(t, gcs)
	require.NoError(t, open(t, g.URL, gatewaytest.Secret).Probe(ctx))

	err := open(t, g.URL, "wrong-secret").Probe(ctx)
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Contains(t, err.Error(), "wrong gateway secret", "the gateway's own words")

	packages := func(c *Config) { c.Network, c.DefaultPackages = provider.AllowNetwork(), []string{"pandas"} }
	err = open(t, g.URL, gatewaytest.Secret, packages).Probe(ctx)
	require.ErrorIs(t, err, provider.ErrInvalidConfig, "the gateway's deployment allows no egress")
	assert.Contains(t, err.Error(), "GATEWAY_ALLOW_EGRESS")

	withEgress := gatewaytest.Start(t, gcs, "GATEWAY_ALLOW_EGRESS=true")
	require.NoError(t, open(t, withEgress.URL, gatewaytest.Secret, packages).Probe(ctx))

	noSecret := gatewaytest.Start(t, gcs, "GATEWAY_SECRET=")
	err = open(t, noSecret.URL, gatewaytest.Secret).Probe(ctx)
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Contains(t, err.Error(), "GATEWAY_SECRET")

	noLauncher := gatewaytest.Start(t, gcs, "GATEWAY_BWRAP=/nonexistent/bwrap")
	err = open(t, noLauncher.URL, gatewaytest.Secret).Probe(ctx)
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "launcher is not usable")

	err = open(t, "http://127.0.0.1:"+gatewaytest.FreePort(t), gatewaytest.Secret).Probe(ctx)
	require.ErrorIs(t, err, provider.ErrUnreachable)
}

func TestAnswersFromOtherServers(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sandboxes":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("<html>nginx</html>"))
		case "/sandboxes/sbx-1/exec":
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("event: stdout\ndata: {\"text\":\"partial\"}\n\n"))
		default:
			w.WriteHeader(http.StatusGatewayTimeout)
		}
	}))
	defer srv.Close()
	c := open(t, srv.URL, gatewaytest.Secret)
	err := c.Probe(ctx)
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "does not answer as the Auxilia gateway")

	inst := provider.Instance{ID: "sbx-1", WorkDir: "/workspace"}
	_, err = c.Execute(ctx, inst, provider.ExecRequest{Command: "true", Timeout: time.Second})
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "ended the stream")

	_, err = c.Stat(ctx, provider.Instance{ID: "sbx-2"}, "/workspace/x")
	assert.True(t, errors.Is(err, provider.ErrTimeout), "%v", err)
}

func TestReconnectRacingAnotherReconnect(t *testing.T) {
	keepalives := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		problem := func(status int, reason, subject string) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(status)
			_, _ = fmt.Fprintf(w, `{"status":%d,"reason":%q,"subject":%q,"detail":"%s %s"}`, status, reason, subject, reason, subject)
		}
		switch r.URL.Path {
		case "/sandboxes/sbx-1/keepalive":
			if keepalives++; keepalives == 1 {
				problem(http.StatusNotFound, "not_found", "sandbox")
				return
			}
			_, _ = w.Write([]byte(`{"id":"sbx-1","work_dir":"/workspace"}`))
		case "/sandboxes/sbx-1/restore":
			problem(http.StatusConflict, "conflict", "sandbox")
		}
	}))
	defer srv.Close()
	c := open(t, srv.URL, gatewaytest.Secret, withBucket)
	inst, err := c.Reconnect(context.Background(), provider.Instance{ID: "sbx-1", WorkDir: "/workspace"})
	require.NoError(t, err, "a sandbox restored meanwhile by someone else is simply used")
	assert.Equal(t, "sbx-1", inst.ID)
	assert.Equal(t, 2, keepalives)
}

func TestACallerThatLeavesIsNoFailureOfTheGateway(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := open(t, srv.URL, gatewaytest.Secret).Probe(ctx)
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, provider.ErrFailed, "the sandbox's health is not the caller's leaving")
}

// A gateway that answers with a redirect does not send the client elsewhere:
// the client reads the redirect as the answer and never follows it.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var followed bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { followed = true }))
	t.Cleanup(elsewhere.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)

	err := open(t, redirecting.URL, gatewaytest.Secret).Probe(context.Background())
	require.Error(t, err)
	assert.False(t, followed, "the client followed the redirect to another server")
}
