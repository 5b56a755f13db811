package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/gcstest"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// TestMain fails the tests when goroutines leak, but for the one OpenCensus
// (a dependency of Google's storage client) starts when loaded.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

const testSecret = "test-secret-0123456789"

// shellLauncher runs commands with bash in the workspace folder, as the
// job's user, without any other isolation: these tests are about the API,
// not the jail, and record the jobs they were given.
type shellLauncher struct {
	checkErr error

	mu   sync.Mutex
	jobs []Job
}

func (l *shellLauncher) Name() string                    { return "shell" }
func (l *shellLauncher) Check(ctx context.Context) error { return l.checkErr }

func (l *shellLauncher) Run(ctx context.Context, job Job, stdout, stderr io.Writer) (Outcome, error) {
	l.mu.Lock()
	l.jobs = append(l.jobs, job)
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, job.Timeout)
	defer cancel()
	// The job's user may not pass through the gateway's folders: it gets
	// its workspace as an open descriptor, and starts there.
	dir, err := os.Open(job.Workspace)
	if err != nil {
		return Outcome{}, err
	}
	defer dir.Close()
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", `cd -P /proc/self/fd/3 && exec /bin/bash -c "$0" 3<&-`, job.Command)
	cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = stdout, stderr, []*os.File{dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(job.User.UID), Gid: uint32(job.User.GID)}
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	start := time.Now()
	err = cmd.Run()
	out := Outcome{Duration: time.Since(start), TimedOut: errors.Is(ctx.Err(), context.DeadlineExceeded)}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		out.ExitCode = exitErr.ExitCode()
	case out.TimedOut:
	default:
		return out, err
	}
	if out.TimedOut {
		out.ExitCode = 124
	}
	return out, nil
}

func (l *shellLauncher) lastJob() Job {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.jobs[len(l.jobs)-1]
}

// harness is a gateway on httptest with a fake Cloud Storage.
type harness struct {
	t        *testing.T
	srv      *httptest.Server
	gw       *Server
	gcs      *gcstest.Server
	launcher *shellLauncher
	secret   string
}

func newHarness(t *testing.T, edit ...func(*Config)) *harness {
	t.Helper()
	gcs := gcstest.NewServer("snapshots")
	t.Cleanup(gcs.Close)
	cfg := Config{Secret: testSecret, DataDir: t.TempDir(), GCSEndpoint: gcs.URL, MaxSnapshotBytes: 64 << 20}
	for _, e := range edit {
		e(&cfg)
	}
	l := &shellLauncher{}
	gw, err := New(cfg, Options{Launcher: l, Store: &GCS{Client: storageClient(t, gcs.URL, "")}})
	require.NoError(t, err)
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(func() {
		srv.Close()
		gw.Close()
	})
	return &harness{t: t, srv: srv, gw: gw, gcs: gcs, launcher: l, secret: cfg.Secret}
}

// call sends a request with the secret; a non-reader body is sent as JSON.
func (h *harness) call(method, path string, body any, header ...string) *http.Response {
	h.t.Helper()
	var r io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case io.Reader:
		r = b
	default:
		raw, err := json.Marshal(b)
		require.NoError(h.t, err)
		r, contentType = bytes.NewReader(raw), "application/json"
	}
	req, err := http.NewRequest(method, h.srv.URL+path, r)
	require.NoError(h.t, err)
	req.Header.Set("Authorization", "Bearer "+h.secret)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := h.srv.Client().Do(req)
	require.NoError(h.t, err)
	h.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// decode reads a response's JSON body after checking its status.
func decode[T any](t *testing.T, resp *http.Response, status int) T {
	t.Helper()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, status, resp.StatusCode, "body: %s", raw)
	var v T
	require.NoError(t, json.Unmarshal(raw, &v), "body: %s", raw)
	return v
}

// problem checks a problem answer's status, reason and subject (none when not given).
func problem(t *testing.T, resp *http.Response, status int, reason auxilia.Code, subject ...wire.Subject) Problem {
	t.Helper()
	p := decode[Problem](t, resp, status)
	require.Equal(t, reason, p.Reason, "detail: %s", p.Detail)
	var want wire.Subject
	if len(subject) > 0 {
		want = subject[0]
	}
	require.Equal(t, want, p.Subject, "detail: %s", p.Detail)
	require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
	return p
}

func (h *harness) create(spec sandboxSpec) Sandbox {
	h.t.Helper()
	return decode[Sandbox](h.t, h.call("POST", "/sandboxes", spec), http.StatusCreated)
}

func (h *harness) exec(id string, body any) execResult {
	h.t.Helper()
	return decode[execResult](h.t, h.call("POST", "/sandboxes/"+id+"/exec", body), http.StatusOK)
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
