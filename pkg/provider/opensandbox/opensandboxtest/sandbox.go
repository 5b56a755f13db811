package opensandboxtest

import (
	"context"
	"maps"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
)

// sandbox is one fake container: a folder standing for its filesystem and
// an execd serving it.
type sandbox struct {
	id         string
	request    CreateRequest
	createdAt  time.Time
	runningAt  time.Time // when it leaves Pending
	neverReady bool      // it stays Pending for ever
	execdAt    time.Time // when its execd starts answering
	root       string    // the host folder that is its "/"
	uid, gid   int       // who its commands run as, and so who owns its files
	execd      *httptest.Server
	sidecar    *sidecar        // nil: created without a networkPolicy
	ctx        context.Context // ends with the sandbox, killing its commands
	cancel     context.CancelFunc
	stopOnce   sync.Once

	mu          sync.Mutex
	metadata    map[string]string // the create's, then as patched
	expiresAt   time.Time         // zero: it never expires
	phase       phase             // set by a test; zero: Pending, then Running
	resumed     chan struct{}     // closed when a paused container resumes
	running     map[string]context.CancelFunc
	interrupted map[string]bool
	ptys        map[string]*ptySession // execd's terminal sessions, by id
}

func newSandbox(s *Server, id string, req CreateRequest, now time.Time, neverReady bool) (*sandbox, error) {
	root := filepath.Join(s.dir, id)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	uid, gid := bubblewrap.Jail{}.User()
	if err := os.Lchown(root, uid, gid); err != nil {
		return nil, err
	}
	sb := &sandbox{
		uid:        uid,
		gid:        gid,
		id:         id,
		request:    req,
		metadata:   maps.Clone(req.Metadata),
		createdAt:  now,
		runningAt:  now.Add(s.opts.PendingFor),
		neverReady: neverReady,
		root:       root,
	}
	sb.execdAt = sb.runningAt.Add(s.opts.ExecdStartDelay)
	if req.Timeout != nil {
		sb.expiresAt = now.Add(time.Duration(*req.Timeout) * time.Second)
	}
	sb.ctx, sb.cancel = context.WithCancel(context.Background())
	sb.execd = httptest.NewServer(s.execdRoutes(sb))
	sb.sidecar = newSidecar(req.NetworkPolicy)
	return sb, nil
}

// state is the sandbox's lifecycle status now.
func (sb *sandbox) state(now time.Time) apiStatus {
	if p := sb.currentPhase(); p.state != "" {
		return apiStatus{State: p.state, Reason: p.reason, Message: p.message, LastTransitionAt: apiTime(p.at)}
	}
	if sb.neverReady || now.Before(sb.runningAt) {
		return apiStatus{State: "Pending", Reason: "SANDBOX_SCHEDULED", Message: "Sandbox is being provisioned.",
			LastTransitionAt: apiTime(sb.createdAt)}
	}
	return apiStatus{State: "Running", Reason: "CONTAINER_RUNNING", Message: "Sandbox container started successfully.",
		LastTransitionAt: apiTime(sb.runningAt)}
}

// execdUp says whether its execd answers yet.
func (sb *sandbox) execdUp(now time.Time) bool {
	return !sb.neverReady && !now.Before(sb.execdAt)
}

func (sb *sandbox) expiry() time.Time {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.expiresAt
}

func (sb *sandbox) setExpiry(t time.Time) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.expiresAt = t
}

func (sb *sandbox) expired() bool {
	e := sb.expiry()
	return !e.IsZero() && time.Now().After(e)
}

// stop kills its commands and takes its execd off the network.
func (sb *sandbox) stop() {
	sb.stopOnce.Do(func() {
		sb.cancel()
		sb.execd.CloseClientConnections()
		sb.execd.Close()
		sb.sidecar.close()
		// The container's end kills its shells; the fake's run on the host.
		sb.mu.Lock()
		ptys := sb.ptys
		sb.ptys = nil
		sb.mu.Unlock()
		for _, p := range ptys {
			p.close()
		}
	})
}

// track registers a running command so that it can be interrupted; the
// function returned says whether it was.
func (sb *sandbox) track(session string, cancel context.CancelFunc) func() bool {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.running == nil {
		sb.running, sb.interrupted = map[string]context.CancelFunc{}, map[string]bool{}
	}
	sb.running[session] = cancel
	return func() bool {
		sb.mu.Lock()
		defer sb.mu.Unlock()
		return sb.interrupted[session]
	}
}

func (sb *sandbox) untrack(session string) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	delete(sb.running, session)
	delete(sb.interrupted, session)
}

// interrupt stops a running command; false when there is none by that id.
func (sb *sandbox) interrupt(session string) bool {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	cancel, ok := sb.running[session]
	if ok {
		sb.interrupted[session] = true
		cancel()
	}
	return ok
}

// own gives name and the folders above it, up to the sandbox's root, to the
// user its commands run as, as execd's files belong to execd's user.
func (sb *sandbox) own(root *os.Root, name string) error {
	for ; name != "." && name != "/"; name = path.Dir(name) {
		if err := root.Lchown(name, sb.uid, sb.gid); err != nil {
			return err
		}
	}
	return nil
}
