package cloudrun

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/gateway/gcstest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// gatewayBinary is the gateway built once for this package's tests.
var gatewayBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cloudrun-gateway-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gatewayBinary = filepath.Join(dir, "cloudrun-gateway")
	build := exec.Command("go", "build", "-o", gatewayBinary, "github.com/auxilia/sandboxes/cmd/cloudrun-gateway")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	code := 1
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the gateway:", err)
	} else {
		code = m.Run()
	}
	_ = os.RemoveAll(dir)
	if code == 0 {
		// OpenCensus, which the Cloud Storage emulator brings, starts one when loaded.
		if err := goleak.Find(goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start")); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
	}
	os.Exit(code)
}

const (
	testSecret = "gateway-secret-for-tests"
	gcsToken   = "ya29.test-token"
	bucket     = "auxilia-snapshots"
)

// gatewayProcess is the real gateway binary, started on loopback.
type gatewayProcess struct {
	URL    string
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	exited chan struct{}
}

// startGateway runs the gateway with the given extra environment and waits for /health.
func startGateway(t *testing.T, gcs *gcstest.Server, env ...string) *gatewayProcess {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(gatewayBinary)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"PORT=" + port,
		"GATEWAY_HOST=127.0.0.1",
		"GATEWAY_SECRET=" + testSecret,
		"GATEWAY_DATA_DIR=" + t.TempDir(),
		"GATEWAY_GCS_ENDPOINT=" + gcs.URL,
		"GATEWAY_GCS_TOKEN=" + gcsToken,
	}, env...)
	g := &gatewayProcess{URL: "http://127.0.0.1:" + port, cmd: cmd, stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = g.stderr, g.stderr
	require.NoError(t, cmd.Start())
	go func() {
		_ = cmd.Wait()
		close(g.exited)
	}()
	t.Cleanup(func() { g.stop(t) })

	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(g.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				http.DefaultClient.CloseIdleConnections()
				return g
			}
		}
		select {
		case <-g.exited:
			t.Fatalf("the gateway exited early:\n%s", g.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway did not answer /health:\n%s", g.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends the gateway as Cloud Run does, with SIGTERM, and expects a clean exit.
func (g *gatewayProcess) stop(t *testing.T) {
	select {
	case <-g.exited:
		return
	default:
	}
	_ = g.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-g.exited:
		if code := g.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("the gateway exited with %d after SIGTERM:\n%s", code, g.stderr)
		}
	case <-time.After(15 * time.Second):
		_ = g.cmd.Process.Kill()
		<-g.exited
		t.Errorf("the gateway did not stop on SIGTERM:\n%s", g.stderr)
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// newFakeGCS starts a fake Cloud Storage that wants the gateway's token.
func newFakeGCS(t *testing.T) *gcstest.Server {
	gcs := gcstest.NewServer(bucket)
	gcs.Token = gcsToken
	t.Cleanup(gcs.Close)
	return gcs
}

// open returns a client of the gateway with the given config changes.
func open(t *testing.T, url, secret string, edit ...func(*Config)) provider.Client {
	t.Helper()
	cfg := DefaultConfig()
	for _, e := range edit {
		e(cfg)
	}
	require.Empty(t, cfg.Validate(provider.Policy{}))
	c, err := Kind{}.Open(provider.Settings{URL: url, Secret: secret, Config: cfg})
	require.NoError(t, err)
	t.Cleanup(c.(interface{ CloseIdleConnections() }).CloseIdleConnections)
	return c
}

func withBucket(c *Config) { c.GCSBucket = bucket }

// deleteAtGateway removes a sandbox behind the client's back, as an idle reaper or a recycled instance would.
func deleteAtGateway(t *testing.T, g *gatewayProcess, id string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodDelete, g.URL+"/sandboxes/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+testSecret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
}
