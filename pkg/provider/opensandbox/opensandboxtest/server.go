// Package opensandboxtest is a fake OpenSandbox for tests: a lifecycle
// server and one execd per sandbox, on loopback, answering as the real ones
// do (status codes, error bodies, the raw-JSON command stream and its hold
// after completion, the server proxy), with knobs to count calls, expire
// sandboxes and inject faults. Its execd really runs commands, each in a
// bubblewrap jail whose /workspace is a folder of the test's, and serves
// terminals: bash on a real pseudo-terminal, on the host, in that folder.
package opensandboxtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// Options shape a fake server. The zero value behaves as a Docker-backed
// controller with no API key and execd's default stream hold.
type Options struct {
	// NoEgressSidecar is a server without egress.image configured, which
	// refuses every networkPolicy.
	NoEgressSidecar bool
	// APIKey, when set, is required in OPEN-SANDBOX-API-KEY on every
	// lifecycle call (as server.api_key does); empty accepts anything.
	APIKey string
	// AllowedHostPaths are the host folders volumes may mount (the server's
	// storage.allowed_host_paths): empty rejects every host volume.
	AllowedHostPaths []string
	// CompletionHold is how long execd keeps a command's stream open after
	// the completion event (its --graceful-shutdown-timeout); zero means
	// execd's default of one second, a negative value no hold.
	CompletionHold time.Duration
	// PendingFor keeps new sandboxes Pending this long, as an asynchronous
	// provisioner does; zero answers create with a Running sandbox, as the
	// server does once it has provisioned (inject a Delay on create to make
	// that take a while).
	PendingFor time.Duration
	// EIP is the server's configured external address (server.eip): proxied
	// endpoints name it instead of the request's host, as the server does.
	EIP string
	// ExecdStartDelay is how long after a sandbox runs its execd starts
	// answering; until then connections to it are dropped.
	ExecdStartDelay time.Duration
	// BridgeNetwork answers direct endpoints in Docker bridge mode's form,
	// host:port/proxy/44772, through execd's own proxy.
	BridgeNetwork bool
	// ExecdAccessToken, when set, is every execd's --access-token
	// (EXECD_ACCESS_TOKEN): each call must carry it in X-EXECD-ACCESS-TOKEN.
	// The server does not know it, so its endpoints name no token; empty,
	// as by default, execd checks nothing (components/execd/pkg/web/router.go).
	ExecdAccessToken string
	// EndpointHeaders are the headers every endpoint answer names, as a
	// deployment that hands out execd's token or routing headers does; the
	// open-source server names none for execd.
	EndpointHeaders map[string]string
	// NoPTY is an execd from before its terminal API (components/execd
	// gained /pty in March 2026): its router answers 404 there.
	NoPTY bool
	// NoSnapshots answers snapshot creation with 501, as a server whose
	// runtime has no snapshot support does (NoopSnapshotRuntime).
	NoSnapshots bool
	// NoMetadataPatch is a server from before PATCH /sandboxes/{id}/metadata:
	// its router answers 404 there.
	NoMetadataPatch bool
	// Execd, when set, is the address (host:port) of an execd running
	// elsewhere, the real one say: every sandbox's direct execd endpoint
	// names it, and the proxy forwards its execd calls to it, instead of
	// the fake's own, so that its commands and files go to that execd.
	Execd string
	// SnapshotFor keeps new snapshots Creating this long, as a runtime
	// committing a large container does; zero makes them Ready at once
	// (the create's answer still says Creating, as the server's does).
	SnapshotFor time.Duration
}

// DefaultCompletionHold is execd's default hold of a finished command's stream.
const DefaultCompletionHold = time.Second

// Op names one operation of the fake, for counting calls and injecting faults.
type Op string

// The lifecycle server's operations.
const (
	OpList     Op = "list"
	OpCreate   Op = "create"
	OpGet      Op = "get"
	OpDelete   Op = "delete"
	OpRenew    Op = "renew"
	OpEndpoint Op = "endpoint"
	OpPause    Op = "pause"
	OpResume   Op = "resume"
	// OpPatchMetadata is PATCH /sandboxes/{id}/metadata.
	OpPatchMetadata Op = "patch metadata"
)

// The execd operations.
const (
	OpPing        Op = "ping"
	OpCommand     Op = "command"
	OpInterrupt   Op = "interrupt"
	OpUpload      Op = "upload"
	OpDownload    Op = "download"
	OpInfo        Op = "info"
	OpListDir     Op = "list directory"
	OpMakeDirs    Op = "make directories"
	OpRemoveFiles Op = "remove files"
	OpRemoveDirs  Op = "remove directories"
	OpPTYCreate   Op = "create terminal"
	OpPTYStatus   Op = "terminal status"
	OpPTYDelete   Op = "delete terminal"
	OpPTYAttach   Op = "attach terminal"
)

// Fault makes an operation misbehave on every call until ClearFaults.
type Fault struct {
	// Status answers with this HTTP status and an error body of the
	// server's own shape (Code and Message, or defaults).
	Status  int
	Code    string
	Message string
	// Malformed answers success with a body that is not what the API promises.
	Malformed bool
	// Delay waits this long before answering (or until the client leaves).
	Delay time.Duration
	// SlowBody sends the answer a few bytes at a time, this far apart.
	SlowBody time.Duration
	// CutStream (command) drops the connection after the first output
	// event; the command runs on, as execd's does.
	CutStream bool
	// NeverReady (create) keeps new sandboxes Pending for ever; (ping) execd
	// never answers.
	NeverReady bool
	// Lost carries the call out, then answers with the rest of the fault
	// (after its Delay; with its Status, or no answer at all), as when a
	// gateway gives up on a call the server did.
	Lost bool
}

// Server is a fake OpenSandbox controller with its sandboxes.
type Server struct {
	// URL is the controller's address, as a sandbox is registered with it.
	URL string
	// Counter counts the calls that reached the fake, by operation, whether
	// it answered, refused or dropped them.
	fakekit.Counter[Op]

	opts      Options
	dir       string
	lifecycle *httptest.Server
	proxy     *http.Transport
	runner    runner

	sawAPIKey atomic.Bool

	mu        sync.Mutex
	sandboxes map[string]*sandbox
	snapshots map[string]*snapshot
	refusal   string // why creates fail, when they do (see RefuseCreates)
	faults    fakekit.Faults[Op, Fault]
	done      chan struct{} // closed when the server stops
	closeOnce sync.Once
}

// New starts a fake controller on loopback; it stops when the test ends.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	s := NewIn(t.TempDir(), opts)
	t.Cleanup(s.Close)
	return s
}

// NewIn starts a fake controller on loopback outside a test (a benchmark
// program), its sandboxes' files in folders under dir, which must exist;
// Close stops it, and dir is the caller's to remove.
func NewIn(dir string, opts Options) *Server {
	s := &Server{
		opts:      opts,
		dir:       dir,
		proxy:     &http.Transport{Proxy: nil, DisableKeepAlives: true},
		runner:    jailRunner{},
		sandboxes: map[string]*sandbox{},
		snapshots: map[string]*snapshot{},
		done:      make(chan struct{}),
	}
	s.lifecycle = httptest.NewServer(s.lifecycleRoutes())
	s.URL = s.lifecycle.URL
	return s
}

// Close stops the controller and every sandbox.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.mu.Lock()
		all := make([]*sandbox, 0, len(s.sandboxes))
		for _, sb := range s.sandboxes {
			all = append(all, sb)
		}
		s.mu.Unlock()
		for _, sb := range all {
			sb.stop()
		}
		s.lifecycle.CloseClientConnections()
		s.lifecycle.Close()
		s.proxy.CloseIdleConnections()
	})
}

// Down takes the whole controller off the network, sandboxes included:
// every later connection is refused.
func (s *Server) Down() { s.Close() }

// ExecdSawAPIKey says whether a call reached an execd with the controller's
// API key on it, in any header: the server proxy strips the key's own
// header, so only a client sending it straight to a sandbox, or under
// another name, would hand it over.
func (s *Server) ExecdSawAPIKey() bool { return s.sawAPIKey.Load() }

// Inject makes op misbehave as f says, until ClearFaults.
func (s *Server) Inject(op Op, f Fault) { s.faults.Set(op, f) }

// ClearFaults makes every operation behave again.
func (s *Server) ClearFaults() { s.faults.Clear() }

// Expire ends a sandbox now, as when its timeout passes: the controller
// forgets it and its execd stops answering.
func (s *Server) Expire(id string) {
	s.mu.Lock()
	sb := s.sandboxes[id]
	delete(s.sandboxes, id)
	s.mu.Unlock()
	if sb != nil {
		sb.stop()
	}
}

// Sandbox describes a live sandbox as the fake sees it.
type Sandbox struct {
	ID        string
	Request   CreateRequest // what create was asked
	ExpiresAt time.Time     // zero when it never expires
	// Metadata is its metadata now: the create's, as patched since.
	Metadata map[string]string
	// Root is the host folder that holds the sandbox's files: its
	// /workspace is Root/workspace.
	Root string
}

// Sandbox returns the live sandbox id, if there is one.
func (s *Server) Sandbox(id string) (Sandbox, bool) {
	sb, ok := s.find(id)
	if !ok {
		return Sandbox{}, false
	}
	return Sandbox{ID: sb.id, Request: sb.request, Metadata: sb.labels(), ExpiresAt: sb.expiry(), Root: sb.root}, true
}

// Sandboxes lists the ids of the live sandboxes.
func (s *Server) Sandboxes() []string {
	s.mu.Lock()
	ids := make([]string, 0, len(s.sandboxes))
	for id := range s.sandboxes {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	live := ids[:0]
	for _, id := range ids {
		if _, ok := s.find(id); ok {
			live = append(live, id)
		}
	}
	return live
}

// find returns sandbox id unless it is unknown or its timeout has passed,
// in which case it is removed as the controller would.
func (s *Server) find(id string) (*sandbox, bool) {
	s.mu.Lock()
	sb, ok := s.sandboxes[id]
	expired := ok && sb.expired()
	if expired {
		delete(s.sandboxes, id)
	}
	s.mu.Unlock()
	if expired {
		sb.stop()
		return nil, false
	}
	return sb, ok
}

// begin counts a call of op and returns the fault it should suffer.
func (s *Server) begin(op Op) (Fault, bool) {
	s.Count(op)
	return s.faults.Take(op)
}

func (s *Server) closing() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}
