// Package gatewaytest runs the real Cloud Run gateway binary on loopback
// for tests, with a fake Cloud Storage, and answers what a test asks of
// it: is a sandbox paused, make one expire, how many copies are kept.
package gatewaytest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/gateway/gcstest"
	"github.com/stretchr/testify/require"
)

const (
	// Secret is the gateway's bearer secret.
	Secret = "gateway-secret-for-tests"
	// Bucket is the fake Cloud Storage's bucket.
	Bucket = "auxilia-snapshots"
	// GCSToken is the token the gateway sends and the fake wants.
	GCSToken = "ya29.test-token"
)

var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// binary builds the gateway once per test process.
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "cloudrun-gateway-test-")
		if built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "cloudrun-gateway")
		build := exec.Command("go", "build", "-o", built.path, "github.com/auxilia/sandboxes/cmd/cloudrun-gateway")
		out, err := build.CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("building the gateway: %w\n%s", err, out)
		}
	})
	require.NoError(t, built.err)
	return built.path
}

// RemoveBinary deletes the built gateway; a TestMain calls it after m.Run.
func RemoveBinary() {
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
}

// NewGCS starts a fake Cloud Storage with Bucket that wants GCSToken.
func NewGCS(t *testing.T) *gcstest.Server {
	gcs := gcstest.NewServer(Bucket)
	gcs.Token = GCSToken
	t.Cleanup(gcs.Close)
	return gcs
}

// Gateway is the real gateway binary, started on loopback.
type Gateway struct {
	URL    string
	GCS    *gcstest.Server
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	exited chan struct{}
}

// Start runs the gateway against gcs, with the given extra environment,
// and waits for /health; the test's end stops it.
func Start(t *testing.T, gcs *gcstest.Server, env ...string) *Gateway {
	t.Helper()
	port := FreePort(t)
	cmd := exec.Command(binary(t))
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"PORT=" + port,
		"GATEWAY_HOST=127.0.0.1",
		"GATEWAY_SECRET=" + Secret,
		"GATEWAY_DATA_DIR=" + t.TempDir(),
		"GATEWAY_GCS_ENDPOINT=" + gcs.URL,
		"GATEWAY_GCS_TOKEN=" + GCSToken,
	}, env...)
	g := &Gateway{URL: "http://127.0.0.1:" + port, GCS: gcs, cmd: cmd, stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = g.stderr, g.stderr
	require.NoError(t, cmd.Start())
	go func() {
		_ = cmd.Wait()
		close(g.exited)
	}()
	t.Cleanup(func() { g.Stop(t) })

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

// Stop ends the gateway as Cloud Run does, with SIGTERM, and expects a clean exit.
func (g *Gateway) Stop(t *testing.T) {
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

// FreePort returns a loopback port nothing listens on.
func FreePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// call sends one request to the gateway with its secret and returns the status.
func (g *Gateway) call(t *testing.T, method, path string, query url.Values) int {
	t.Helper()
	target := g.URL + path
	if query != nil {
		target += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(context.Background(), method, target, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+Secret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	return resp.StatusCode
}

// snapshotAt names the sandbox's snapshot in Bucket under prefix, as the
// client's calls do.
func snapshotAt(prefix string) url.Values {
	return url.Values{"gcs_bucket": {Bucket}, "snapshot_prefix": {prefix}}
}

// Delete removes a sandbox behind its client's back, as an idle reaper or
// a recycled instance would; its snapshot stays.
func (g *Gateway) Delete(t *testing.T, id string) {
	t.Helper()
	require.Equal(t, http.StatusNoContent, g.call(t, http.MethodDelete, "/sandboxes/"+id, nil))
}

// Paused says whether the gateway no longer holds the sandbox while its
// snapshot under prefix is in the bucket: what a pause leaves.
func (g *Gateway) Paused(t *testing.T, prefix, id string) bool {
	t.Helper()
	if g.call(t, http.MethodGet, "/sandboxes/"+id, nil) != http.StatusNotFound {
		return false
	}
	return g.call(t, http.MethodGet, "/sandboxes/"+id+"/snapshot", snapshotAt(prefix)) == http.StatusOK
}

// Expire makes the sandbox go behind the server's back for good: the
// gateway forgets it and its snapshot under prefix is deleted, so that
// nothing can resume it.
func (g *Gateway) Expire(t *testing.T, prefix, id string) {
	t.Helper()
	status := g.call(t, http.MethodDelete, "/sandboxes/"+id, nil)
	require.Contains(t, []int{http.StatusNoContent, http.StatusNotFound}, status, "deleting %s", id)
	require.Equal(t, http.StatusNoContent, g.call(t, http.MethodDelete, "/sandboxes/"+id+"/snapshot", snapshotAt(prefix)))
}

// Kept counts the kept copies in the bucket under prefix ("<prefix>kept/...").
func (g *Gateway) Kept(prefix string) int {
	n := 0
	for _, name := range g.GCS.Objects(Bucket, prefix+"kept/") {
		if strings.HasSuffix(name, ".tar") {
			n++
		}
	}
	return n
}
