package agentsandbox

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
)

// The commands, files and terminal are spoken to a real sandboxd: the
// binary SANDBOXD_BIN names (`make sandboxd` builds it into bin/, and
// `make test` names it), run on this host as a pod's would be. Without
// one the tests say so and skip, and fail where CI is set.
// The lifecycle, the API server's part, is a process here.

func sandboxdBinary(t *testing.T) string {
	bin := os.Getenv("SANDBOXD_BIN")
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("SANDBOXD_BIN names no sandboxd binary: run the tests with make test, or make sandboxd and name bin/sandboxd")
		}
		t.Skip("SANDBOXD_BIN names no sandboxd binary (make sandboxd builds one into bin/)")
	}
	return bin
}

// localPods dials a pod's ports where its sandboxd listens on this host.
type localPods struct {
	mu    sync.Mutex
	ports map[string][2]int // by pod: gRPC's, REST's
}

func (l *localPods) dial(ctx context.Context, pod podRef, port int) (net.Conn, error) {
	l.mu.Lock()
	ports := l.ports[pod.Name]
	l.mu.Unlock()
	actual := ports[0]
	if port == restPort {
		actual = ports[1]
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(actual)))
}

// hostPods is a Client whose instances are sandboxd processes of this host.
type hostPods struct {
	*Client
	t     *testing.T
	bin   string
	pods  *localPods
	mu    sync.Mutex
	procs map[string]*exec.Cmd
	// refused makes every create fail, as a quota would.
	refused bool
}

func newHostPods(t *testing.T) *hostPods {
	cfg := DefaultConfig()
	cfg.Image = "sandboxd"
	c, err := openClient(cfg, "", testPolicy, inCluster{})
	require.NoError(t, err)
	pods := &localPods{ports: map[string][2]int{}}
	c.pods = newPodConns(pods)
	h := &hostPods{Client: c, t: t, bin: sandboxdBinary(t), pods: pods, procs: map[string]*exec.Cmd{}}
	t.Cleanup(func() {
		c.CloseIdleConnections()
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, cmd := range h.procs {
			if cmd != nil && cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		}
	})
	return h
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (h *hostPods) Probe(context.Context) error { return nil }

func (h *hostPods) Create(ctx context.Context, _ provider.Labels) (provider.Instance, error) {
	h.mu.Lock()
	refused := h.refused
	h.mu.Unlock()
	if refused {
		return provider.Instance{}, failure(provider.ErrQuota, "create", "exceeded quota: pods=10")
	}
	return h.start(ctx, "pod-"+randomID(), filepath.Join(h.t.TempDir(), "workspace"))
}

// start runs a pod's sandboxd on root: a new one, or one paused whose
// files are kept.
func (h *hostPods) start(ctx context.Context, name, root string) (provider.Instance, error) {
	grpcAt, restAt := freePort(h.t), freePort(h.t)
	cmd := exec.Command(h.bin, "--listen-host=127.0.0.1", "--root-dir="+root,
		"--grpc-port="+strconv.Itoa(grpcAt), "--rest-port="+strconv.Itoa(restAt))
	if err := cmd.Start(); err != nil {
		return provider.Instance{}, err
	}
	h.mu.Lock()
	h.procs[name] = cmd
	h.mu.Unlock()
	h.pods.mu.Lock()
	h.pods.ports[name] = [2]int{grpcAt, restAt}
	h.pods.mu.Unlock()
	inst := provider.Instance{ID: name, WorkDir: root, State: state{Pod: name, IP: "127.0.0.1"}.raw()}
	return inst, h.untilServing(ctx, "create", inst)
}

func (h *hostPods) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	h.mu.Lock()
	cmd, ok := h.procs[inst.ID]
	h.mu.Unlock()
	switch {
	case !ok:
		return provider.Instance{}, failure(provider.ErrGone, "reconnect", "no such pod")
	case cmd == nil: // paused: its files are kept
		return h.start(ctx, inst.ID, inst.WorkDir)
	case cmd.ProcessState != nil: // exited
		return provider.Instance{}, failure(provider.ErrGone, "reconnect", "the pod has ended")
	}
	return inst, nil
}

// stop ends a pod's sandboxd; paused, it may start again.
func (h *hostPods) stop(t *testing.T, id string, paused bool) {
	h.Client.pods.forget(id)
	h.mu.Lock()
	defer h.mu.Unlock()
	cmd := h.procs[id]
	require.NotNil(t, cmd)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if paused {
		h.procs[id] = nil
	}
}

func (h *hostPods) Pause(t *testing.T, id string) { h.stop(t, id, true) }
func (h *hostPods) Exit(t *testing.T, id string)  { h.stop(t, id, false) }

func (h *hostPods) RefuseCreates(t *testing.T) providertest.Refusal {
	h.mu.Lock()
	h.refused = true
	h.mu.Unlock()
	t.Cleanup(func() {
		h.mu.Lock()
		h.refused = false
		h.mu.Unlock()
	})
	return providertest.Refusal{Kind: provider.ErrQuota, Words: "exceeded quota"}
}

func (h *hostPods) Destroy(_ context.Context, inst provider.Instance) error {
	h.Client.pods.forget(inst.ID)
	h.mu.Lock()
	cmd, ok := h.procs[inst.ID]
	delete(h.procs, inst.ID)
	h.mu.Unlock()
	if ok && cmd != nil && cmd.ProcessState == nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	return nil
}

func TestSandboxdConforms(t *testing.T) {
	providertest.Run(t, newHostPods(t))
}

func TestSandboxdTerminalConforms(t *testing.T) {
	h := newHostPods(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inst, err := h.Create(ctx, provider.Labels{})
	require.NoError(t, err)
	providertest.RunTerminal(t, h, inst)
}

func TestSandboxdCommandsAndStates(t *testing.T) {
	h := newHostPods(t)
	providertest.RunStates(t, Kind{}.Describe(), h, h)
}
