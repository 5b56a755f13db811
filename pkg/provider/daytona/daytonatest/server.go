// Package daytonatest is a fake Daytona for tests: a control plane and a
// toolbox proxy on loopback httptest servers that answer as Daytona's API,
// proxy, runner and daemon do (status codes, both error dialects, the
// quirks), with a toolbox that really runs commands in bubblewrap jails and
// shells on real pseudo-terminals, or forwards to a real Daytona daemon.
// Knobs let tests stop, archive, break (recoverably or not) or destroy a
// sandbox, move the clock past auto-stop, manage API keys and their
// permissions, set the organisation's quota or suspend it, play daemons
// before v0.156, before sessions or before PTY sessions, count calls per
// operation and inject faults.
//
// Where the fake's own toolbox knowingly differs from Daytona's daemon:
// commands run with /bin/sh (the daemon prefers zsh or bash when the image
// has them), a command whose top-level shell is killed by signal n
// reports 128+n (the daemon reports -1), and a sandbox has files only in
// WorkDir and /tmp. A started sandbox's processes all run in one jail, as
// a container's do: jobs a command leaves running go on until the sandbox
// stops, a session's shell is one shell in a process group of its own fed
// its commands one after the other, and deleting a session does what the
// daemon's delete does and no more (SIGTERM to the shell's group and the
// tree below the shell, SIGKILL after a grace period, then the shell
// itself), so that a job in a session of its own whose parent died runs
// on. Processes lists what runs in a sandbox. A PTY session's shell is
// bash on a real pseudo-terminal on the host, as
// the fake's own user, started in the sandbox's folder there, with PATH,
// HOME (the sandbox's home folder) and the session's variables alone: it
// prints host paths, and it is not in a jail.
package daytonatest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// DefaultKey is the API key a server accepts when Options.Keys is empty.
const DefaultKey = "dtn_test_key"

// WorkDir is the sandbox user's home: where commands run and relative paths resolve.
const WorkDir = "/home/daytona"

// Options shape a fake Daytona.
type Options struct {
	// Keys are the API keys accepted; empty means DefaultKey alone.
	Keys []string
	// Transition is how many looks (GET /sandbox/{id}) each intermediate
	// state lasts: creating, starting, stopping, restoring, destroying, …
	// 0 skips them, so that create answers "started".
	Transition int
	// Targets are the regions create accepts; empty means "us" and "eu".
	Targets []string
	// ClosedTargets are regions among Targets the organisation may not use:
	// create refuses them with a 403.
	ClosedTargets []string
	// Snapshots are the snapshot names create accepts; empty accepts any.
	Snapshots []string
	// BareList answers GET /sandbox with a bare array, as older servers did,
	// instead of {"items", "nextCursor"}.
	BareList bool
	// ArgvCommands makes the toolbox run a command as daemons before v0.156
	// did: split into arguments at spaces outside quotes and run without a
	// shell, so that a script of several lines gets exit -1 and no output.
	ArgvCommands bool
	// NoSessions makes the toolbox a daemon without shell sessions: every
	// /process/session call is gin's bare 404, as on daemons from before them.
	NoSessions bool
	// NoPTY makes the toolbox a daemon without terminals: every
	// /process/pty call is gin's bare 404, as on daemons before v0.107.0
	// (and so on those without sessions too).
	NoPTY bool
	// UploadNeedsParent makes the toolbox refuse an upload whose folder is
	// missing, as daemons did before they made parent folders themselves.
	UploadNeedsParent bool
	// Dir holds each sandbox's files; empty means a temporary folder,
	// removed by Close.
	Dir string
	// ToolboxURL, when set, forwards every toolbox call of a started
	// sandbox to this daemon (a real Daytona toolbox, e.g.
	// "http://127.0.0.1:2280") instead of serving it here.
	ToolboxURL string
	// Jail limits for commands run here (0 = none).
	MemoryMB, MaxProcesses int
	// NoSnapshotRegistry refuses snapshots of sandboxes, as Daytona does
	// where no internal registry serves the sandbox's region.
	NoSnapshotRegistry bool
	// SandboxClass is the class sandboxes are made in: "container" (the
	// default) or "linux-vm", "windows", "android". Daytona pauses with
	// memory only "linux-vm" and "windows" sandboxes (pause in its
	// apps/api/src/sandbox/services/sandbox.service.ts) and refuses the
	// others with a 422.
	SandboxClass string
	// NoPause makes the API one from before POST /sandbox/{id}/pause: the
	// route is NestJS's 404 "Cannot POST …".
	NoPause bool
	// NoResize makes the API one without POST /sandbox/{id}/resize: from
	// before it, or with its sandbox_resize feature flag off, which answers
	// as a missing route does (404 "Cannot POST …").
	NoResize bool
	// MaxCPUPerSandbox and MaxMemoryPerSandbox (GiB) are the organisation's
	// limits on one sandbox, which a resize may not pass; 0 is Daytona's
	// default of 4 and 8 (organization.entity.ts).
	MaxCPUPerSandbox, MaxMemoryPerSandbox int
	// SnapshotResources are what the snapshot gives each new sandbox; the
	// zero value is Daytona's default of 1 vCPU, 1 GiB and 3 GiB of disk.
	SnapshotResources Resources
	// LimitedNetworkEgress makes the organisation one of Daytona's cloud
	// tiers 1 and 2, whose sandboxes may not set their own network: create
	// refuses networkBlockAll and networkAllowList with a 400.
	LimitedNetworkEgress bool
	// Latency is added to every call, control plane and toolbox alike,
	// before it is handled: a provider's round trip, for benchmarks.
	Latency time.Duration
	// CreateDelay holds every create this much longer before it is
	// handled, as a provider pulling an image and starting a container
	// does; other calls answer meanwhile. A caller that leaves first
	// creates nothing.
	CreateDelay time.Duration
}

// Server is a fake Daytona. Its methods are safe for concurrent use.
type Server struct {
	// Counter counts the calls of each operation, faulted ones included.
	fakekit.Counter[string]

	opts Options
	// life ends with Close: commands still running then are killed.
	life    context.Context
	endLife context.CancelFunc
	api     *httptest.Server
	proxy   *httptest.Server
	dir     string
	tempDir bool
	forward *url.URL
	// forwardTransport carries calls to the real daemon at Options.ToolboxURL.
	forwardTransport *http.Transport

	mu     sync.Mutex
	offset time.Duration // how far the fake clock is ahead of the real one
	// stopChecked is when, on the fake clock, auto-stop last looked.
	stopChecked time.Time
	keys        map[string]*apiKey
	sandboxes   map[string]*sandbox
	snapshots   map[string]*snapshot // made from sandboxes, by name
	faults      fakekit.Faults[string, Fault]
	quota       Quota
	// suspended organisations are refused sandboxes, for suspension's reason.
	suspended  bool
	suspension string
	executed   []Executed
	// sessions are the toolbox's shell sessions, by sandbox and session id.
	sessions map[sessionKey]*shellSession
	// ptys are the toolbox's PTY sessions, by sandbox and session id.
	ptys map[sessionKey]*ptySession
	// sessionRuns are the commands of sessions and the shells of PTY
	// sessions still running, waited for by Close.
	sessionRuns sync.WaitGroup
	// jails are the started sandboxes' jails, by sandbox id.
	jails   map[string]*sandboxJail
	jailsMu sync.Mutex
}

// New starts a fake Daytona; Close stops it.
func New(opts Options) (*Server, error) {
	s := &Server{
		opts:      opts,
		keys:      map[string]*apiKey{},
		sandboxes: map[string]*sandbox{},
		snapshots: map[string]*snapshot{},
		sessions:  map[sessionKey]*shellSession{},
		ptys:      map[sessionKey]*ptySession{},
		jails:     map[string]*sandboxJail{},
	}
	if opts.ToolboxURL != "" {
		u, err := url.Parse(opts.ToolboxURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("daytonatest: ToolboxURL %q is not a URL", opts.ToolboxURL)
		}
		s.forward = u
		s.forwardTransport = &http.Transport{}
	}
	s.dir = opts.Dir
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "daytonatest-")
		if err != nil {
			return nil, err
		}
		s.dir, s.tempDir = dir, true
	}
	keys := opts.Keys
	if len(keys) == 0 {
		keys = []string{DefaultKey}
	}
	for _, k := range keys {
		s.keys[k] = newAPIKey(k, time.Time{})
	}
	s.life, s.endLife = context.WithCancel(context.Background())
	// Latency comes before s.mu is taken, so that calls in flight overlap
	// as they would over a network.
	s.api = httptest.NewServer(fakekit.Latency(opts.Latency, http.HandlerFunc(s.serveControlPlane)))
	s.proxy = httptest.NewServer(fakekit.Latency(opts.Latency, http.HandlerFunc(s.serveToolboxProxy)))
	return s, nil
}

// Start is New for a test: it fails the test when the fake cannot start
// and closes the fake when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatalf("start fake Daytona: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Close stops the servers and removes the files the fake made.
func (s *Server) Close() {
	s.endLife()
	s.sessionRuns.Wait()
	s.api.Close()
	s.proxy.Close()
	if s.forwardTransport != nil {
		s.forwardTransport.CloseIdleConnections()
	}
	if s.tempDir {
		_ = os.RemoveAll(s.dir)
	}
}

// URL is the control plane's URL, with its /api prefix, as a sandbox's
// settings hold it.
func (s *Server) URL() string { return s.api.URL + "/api" }

// ToolboxProxyURL is what sandboxes carry as their toolboxProxyUrl.
func (s *Server) ToolboxProxyURL() string { return s.proxy.URL + "/toolbox" }

// now is the fake clock: the real one, moved on by Advance.
func (s *Server) now() time.Time { return time.Now().Add(s.offset) }

// Advance moves the fake clock on, so that sandboxes idle for longer than
// their auto-stop interval begin to stop, as Daytona's would.
func (s *Server) Advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offset += d
	s.stopIdle(s.now())
}

// errNoSandbox is what the knobs return for an id the fake does not have.
var errNoSandbox = errors.New("daytonatest: no such sandbox")
