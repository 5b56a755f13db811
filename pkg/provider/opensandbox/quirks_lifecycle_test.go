package opensandbox_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One test per quirk of the lifecycle server that the client must get right.

// recorder sits in front of the fake controller and notes every call.
type recorder struct {
	mu    sync.Mutex
	calls []recorded
}

type recorded struct {
	method, path string
	apiKey       string
}

func record(t *testing.T, target string) (*recorder, string) {
	t.Helper()
	u, err := url.Parse(target)
	require.NoError(t, err)
	rec := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	proxy.Transport = &http.Transport{DisableKeepAlives: true}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.calls = append(rec.calls, recorded{r.Method, r.URL.Path, r.Header.Get("OPEN-SANDBOX-API-KEY")})
		rec.mu.Unlock()
		_ = http.NewResponseController(w).EnableFullDuplex()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

func (r *recorder) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.calls...)
}

// The API is served at /v1 (and /): the client uses /v1, with its key on
// every call, and reaches execd through /sandboxes/{id}/proxy/44772 without /v1.
func TestQuirkAPIAtV1WithKeyAndProxyPathWithout(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: testKey})
	rec, url := record(t, fake.URL)
	client := openClient(t, testKind, url, testKey)
	inst := create(t, client)
	run(t, client, inst, "true")

	var lifecycle, proxied int
	for _, c := range rec.all() {
		assert.Equal(t, testKey, c.apiKey, "%s %s carries the API key", c.method, c.path)
		switch {
		case strings.HasPrefix(c.path, "/sandboxes/"+inst.ID+"/proxy/44772/"):
			proxied++
		case strings.HasPrefix(c.path, "/v1/sandboxes"):
			lifecycle++
		default:
			t.Errorf("unexpected call %s %s", c.method, c.path)
		}
	}
	assert.Positive(t, lifecycle)
	assert.Positive(t, proxied, "execd is reached through the server proxy")
	assert.False(t, fake.ExecdSawAPIKey(), "the proxy strips the key before execd")
}

// A controller with no key configured accepts anything, so a sandbox may be
// registered without one.
func TestQuirkNoKeyConfiguredAcceptsAnything(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	for _, key := range []string{"", "whatever"} {
		require.NoError(t, openClient(t, testKind, fake.URL, key).Probe(context.Background()))
	}
}

// Straight to a sandbox, the key stays home: the sandbox's code could read it.
func TestQuirkAPIKeyNeverSentStraightToExecd(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{}, direct)
	inst := create(t, client)
	run(t, client, inst, "true")
	require.NoError(t, client.WriteFile(context.Background(), inst, "/workspace/a.txt", []byte("a")))
	assert.False(t, fake.ExecdSawAPIKey())
}

// Create answers 202 with the sandbox; the request carries what the API
// requires (image with entrypoint, resource limits), a 30-minute timeout,
// our labels and the volumes.
func TestQuirkCreateAnswers202WithTheRequestTheAPIWants(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{AllowedHostPaths: []string{"/srv"}}, func(c *opensandbox.Config) {
		c.DefaultImage = "ghcr.io/example/agent:1.2"
		c.VolumeMounts = []string{"/srv/models:/models:ro", "/srv/cache:/cache"}
	})
	inst, err := client.Create(context.Background(), provider.Labels{
		Workspace: "0b6f7c2e-8f0a-4c1e-9d55-2b1f3e4a5c6d", Sandbox: "7d1e4f2a-1111-4c1e-9d55-2b1f3e4a5c6d", Thread: "c0ffee00-2222-4c1e-9d55-2b1f3e4a5c6d"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
	assert.Equal(t, "/workspace", inst.WorkDir)

	sb, ok := fake.Sandbox(inst.ID)
	require.True(t, ok)
	req := sb.Request
	assert.Equal(t, "ghcr.io/example/agent:1.2", req.Image.URI)
	assert.Equal(t, []string{"tail", "-f", "/dev/null"}, req.Entrypoint)
	assert.Equal(t, map[string]string{"cpu": "1", "memory": "2Gi"}, req.ResourceLimits)
	require.NotNil(t, req.Timeout)
	assert.Equal(t, 1800, *req.Timeout)
	assert.Equal(t, map[string]string{
		"managed-by":        "auxilia",
		"auxilia-workspace": "0b6f7c2e-8f0a-4c1e-9d55-2b1f3e4a5c6d",
		"auxilia-sandbox":   "7d1e4f2a-1111-4c1e-9d55-2b1f3e4a5c6d",
		"auxilia-thread":    "c0ffee00-2222-4c1e-9d55-2b1f3e4a5c6d",
	}, req.Metadata)
	assert.Equal(t, []opensandboxtest.Volume{
		{Name: "mount-0", MountPath: "/models", ReadOnly: true, Host: &opensandboxtest.HostVolume{Path: "/srv/models"}},
		{Name: "mount-1", MountPath: "/cache", Host: &opensandboxtest.HostVolume{Path: "/srv/cache"}},
	}, req.Volumes)
	assert.WithinDuration(t, time.Now().Add(30*time.Minute), sb.ExpiresAt, time.Minute)
}

// Request validation failures come from FastAPI as 422 {"detail":[…]}, not
// {"code","message"}: their words still reach the user.
func TestQuirkValidationErrorsAre422Detail(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{}, func(c *opensandbox.Config) { c.DefaultImage = " " })
	_, err := client.Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Equal(t, "422 Unprocessable Entity: body: Value error, Exactly one of image or snapshotId must be provided.",
		providerMessage(t, err))
}

// Metadata follows Kubernetes label rules, which the controller enforces:
// a label value it would refuse is left out, so create still succeeds.
func TestQuirkMetadataFollowsLabelRules(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst, err := client.Create(context.Background(), provider.Labels{Workspace: "ws-1", Sandbox: "sb 1", Thread: "slack:C1/1700000000.1"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
	sb, _ := fake.Sandbox(inst.ID)
	assert.Equal(t, map[string]string{"managed-by": "auxilia", "auxilia-workspace": "ws-1"}, sb.Request.Metadata)
}

// On Kubernetes a new sandbox is Pending for a while: create polls until Running.
func TestQuirkCreatePendingUntilRunning(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{PendingFor: 500 * time.Millisecond})
	inst := create(t, client)
	assert.Positive(t, fake.Calls(opensandboxtest.OpGet), "the client polled until Running")
	assert.Equal(t, "ok\n", run(t, client, inst, "echo ok").Output)
}

// The server answers create only once it has provisioned the sandbox (an
// image pull first, on Docker; Kubernetes waits for the pod): the ready
// timeout bounds it, not the timeout of an ordinary call.
func TestQuirkCreateBlocksUntilProvisioned(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: testKey})
	fake.Inject(opensandboxtest.OpCreate, opensandboxtest.Fault{Delay: 1500 * time.Millisecond})
	client := openClient(t, opensandbox.Kind{ReadyTimeout: 20 * time.Second, RequestTimeout: 500 * time.Millisecond}, fake.URL, testKey)
	inst := create(t, client)
	assert.Equal(t, []string{inst.ID}, fake.Sandboxes(), "one sandbox, made once")

	impatient := openClient(t, opensandbox.Kind{ReadyTimeout: 500 * time.Millisecond, RequestTimeout: 10 * time.Second}, fake.URL, testKey)
	_, err := impatient.Create(context.Background(), labelled)
	require.ErrorIs(t, err, provider.ErrTimeout)
	assert.Contains(t, err.Error(), "within 500ms")
}

// A server with server.eip set names that address, often without a port,
// in its proxied endpoints: execd is reached where the controller is.
func TestQuirkServerProxyBehindAnEIP(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{EIP: "http://203.0.113.7"})
	inst := create(t, client)
	assert.Equal(t, "ok\n", run(t, client, inst, "echo ok").Output)
}

// Create answers Running before execd answers: the client polls /ping.
func TestQuirkRunningBeforeExecdAnswers(t *testing.T) {
	for _, tt := range []struct {
		name      string
		configure func(*opensandbox.Config)
	}{
		{"through the server proxy", func(*opensandbox.Config) {}},
		{"direct to execd", direct},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake, client := setup(t, opensandboxtest.Options{ExecdStartDelay: 700 * time.Millisecond}, tt.configure)
			create(t, client)
			assert.Greater(t, fake.Calls(opensandboxtest.OpPing), 1, "the client polled /ping until execd answered")
			assert.Zero(t, fake.Calls(opensandboxtest.OpGet), "a sandbox created Running needs no status poll")
		})
	}
}

// A warm reconnect is exactly one provider call: the look at its state,
// which also says its lease needs no renewal yet. The endpoint and its
// headers come from the instance's State.
func TestQuirkWarmReconnectIsOneCall(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)

	fake.ResetCalls()
	again, err := client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, 1, fake.TotalCalls())
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpGet))
	assert.Equal(t, inst, again)

	fake.ResetCalls()
	assert.Equal(t, "hi\n", run(t, client, again, "echo hi").Output)
	assert.Equal(t, 1, fake.TotalCalls(), "a command is one execd call, with no endpoint lookup")
}

// An instance stored without State (an older one) still reconnects, at the
// price of asking for its endpoint again.
func TestQuirkReconnectWithoutStateAsksForTheEndpoint(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.ResetCalls()
	bare := provider.Instance{ID: inst.ID}
	again, err := client.Reconnect(context.Background(), bare)
	require.NoError(t, err)
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpGet))
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpEndpoint))
	assert.Equal(t, "/workspace", again.WorkDir)
	assert.Equal(t, "hi\n", run(t, client, again, "echo hi").Output)
}

// Renewal sets the expiry to now + 30 minutes; it does not add to it.
func TestQuirkRenewSetsTheExpiry(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	for range 3 {
		fake.SetExpiry(inst.ID, time.Now().Add(time.Minute))
		_, err := client.Reconnect(context.Background(), inst)
		require.NoError(t, err)
		require.NoError(t, client.KeepAlive(context.Background(), inst))
	}
	sb, ok := fake.Sandbox(inst.ID)
	require.True(t, ok)
	assert.WithinDuration(t, time.Now().Add(30*time.Minute), sb.ExpiresAt, time.Minute)
	assert.Equal(t, 6, fake.Calls(opensandboxtest.OpRenew), "every keep-alive, and every reconnect to a spent lease, renews")
}

// Once expired or deleted, a sandbox is 404 SANDBOX_NOT_FOUND: gone.
func TestQuirkExpiredSandboxIsGone(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.Expire(inst.ID)

	_, err := client.Reconnect(context.Background(), inst)
	require.ErrorIs(t, err, provider.ErrGone)
	assert.Contains(t, providerMessage(t, err), "DOCKER::SANDBOX_NOT_FOUND")
	assert.ErrorIs(t, client.KeepAlive(context.Background(), inst), provider.ErrGone)
	_, err = client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	assert.ErrorIs(t, err, provider.ErrGone, "the server proxy's 404 for the sandbox is not a missing file")
	_, err = providertest.ReadAll(context.Background(), client, inst, "/workspace/kept.txt")
	assert.ErrorIs(t, err, provider.ErrGone)
	assert.NoError(t, client.Destroy(context.Background(), inst), "destroying a gone sandbox is fine")
}

// Delete answers 204; a second delete is a 404 the client takes as done.
func TestQuirkDeleteTwice(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	require.NoError(t, client.Destroy(context.Background(), inst))
	require.NoError(t, client.Destroy(context.Background(), inst))
	assert.Equal(t, 2, fake.Calls(opensandboxtest.OpDelete))
	assert.Empty(t, fake.Sandboxes())
}

// A host path outside the controller's allowed_host_paths is refused with
// 400 VOLUME::HOST_PATH_NOT_ALLOWED, surfaced as it is.
func TestQuirkHostPathNotAllowed(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{AllowedHostPaths: []string{"/srv/shared"}}, func(c *opensandbox.Config) {
		c.VolumeMounts = []string{"/data/models:/models:ro"}
	})
	_, err := client.Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Equal(t, "VOLUME::HOST_PATH_NOT_ALLOWED: Host path '/data/models' is not under any allowed prefix. Allowed prefixes: ['/srv/shared']",
		providerMessage(t, err))
	assert.Equal(t, "config", provider.Reason(err))
	assert.Empty(t, fake.Sandboxes())
}
