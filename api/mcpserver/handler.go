package mcpserver

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HeaderThread names the thread an MCP session works on.
const HeaderThread = "Auxilia-Thread"

// protocolVersions are the versions served: those with sessions, since a
// session is what carries a thread and its run, and what ends the run when
// it closes. A client that asks for a later version is answered with the
// newest of these, as the protocol's negotiation says.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Runs is what the server needs of runs and the sandbox tools.
type Runs interface {
	Start(ctx context.Context, workspaceID, agentID, key string) (auxilia.Run, error)
	Complete(ctx context.Context, workspaceID, id string) (auxilia.Run, error)
	Execute(ctx context.Context, workspaceID, runID string, in run.ExecInput) (provider.ExecResult, error)
	List(ctx context.Context, workspaceID, runID string, in run.ListInput, approved bool) (run.Listing, error)
	Read(ctx context.Context, workspaceID, runID string, in run.ReadInput, approved bool) (run.Text, error)
	Write(ctx context.Context, workspaceID, runID string, in run.WriteInput, approved bool) (string, error)
	Edit(ctx context.Context, workspaceID, runID string, in run.EditInput, approved bool) (int, error)
	Glob(ctx context.Context, workspaceID, runID string, in run.GlobInput, approved bool) (run.GlobResult, error)
	Grep(ctx context.Context, workspaceID, runID string, in run.GrepInput, approved bool) (run.GrepResult, error)
}

// Deps are what the server works with.
type Deps struct {
	Runs  Runs
	Audit auxilia.Auditor
	Log   *slog.Logger
	// Version is the server's version, told to clients.
	Version string
	// BodyLimit caps a request's body (a write_file's content travels in it).
	BodyLimit int64
	// SessionTimeout closes a session no request came for in this long,
	// which completes its run (default: an hour, a run's idle timeout).
	SessionTimeout time.Duration
}

// Server serves every agent's MCP endpoint.
type Server struct {
	deps Deps
	mu   sync.Mutex
	// endpoints holds one transport handler per agent of a workspace, so
	// that a session is only ever reached at the URL of the agent it was
	// opened for.
	endpoints map[endpointKey]http.Handler
}

type endpointKey struct{ workspaceID, agentID string }

// New returns the MCP server of every agent.
func New(d Deps) *Server {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.SessionTimeout <= 0 {
		d.SessionTimeout = time.Hour
	}
	return &Server{deps: d, endpoints: map[endpointKey]http.Handler{}}
}

// Serve answers one HTTP request at the agent's endpoint. The request's
// context carries its authenticated actor; agent is the agent, found in
// the actor's workspace; thread is the Auxilia-Thread header's value,
// already checked (empty: the session is its own thread).
func (s *Server) Serve(w http.ResponseWriter, r *http.Request, agent auxilia.Agent) {
	a, _ := auxilia.ActorFrom(r.Context())
	ctx := context.WithValue(r.Context(), agentKey{}, agent)
	s.endpoint(a.Workspace.ID, agent.ID).ServeHTTP(w, r.WithContext(ctx))
}

// sameToken tells the transport which token sent a request, which the
// caller has authenticated: the transport ties a session to the token that
// opened it, so that another token, even of the same workspace, cannot use it.
var sameToken = auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
	a, _ := auxilia.ActorFrom(ctx)
	return &auth.TokenInfo{UserID: a.TokenID}, nil
}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})

type agentKey struct{}

func (s *Server) endpoint(workspaceID, agentID string) http.Handler {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := endpointKey{workspaceID, agentID}
	h, ok := s.endpoints[key]
	if !ok {
		h = sameToken(mcp.NewStreamableHTTPHandler(s.newSession, &mcp.StreamableHTTPOptions{
			Logger:              s.deps.Log,
			SessionTimeout:      s.deps.SessionTimeout,
			MaxRequestBodyBytes: s.deps.BodyLimit,
			// The SDK's guard against DNS rebinding refuses a request that
			// reaches a loopback address under another host name: that is
			// every request a reverse proxy on the same host forwards. It
			// protects servers that take no credentials; every request here
			// carries a bearer token, which a rebound page does not have.
			DisableLocalhostProtection: true,
		}))
		s.endpoints[key] = h
	}
	return h
}

// newSession makes the MCP server of a new session, from the request that
// opens it: the agent's tools (those its binding does not disable), the
// working folder's resources, and the thread the session works on.
func (s *Server) newSession(r *http.Request) *mcp.Server {
	agent, _ := r.Context().Value(agentKey{}).(auxilia.Agent)
	a, _ := auxilia.ActorFrom(r.Context())
	sess := &session{deps: s.deps, actor: a, agent: agent, thread: r.Header.Get(HeaderThread)}
	srv := mcp.NewServer(&mcp.Implementation{Name: "auxilia", Title: "Auxilia sandbox of " + agent.Name, Version: s.deps.Version},
		&mcp.ServerOptions{
			Instructions: "The tools run in the sandbox of agent " + agent.Name + ": a working folder and a shell, " +
				"kept for this conversation's thread.",
			GetSessionID:              sess.newID,
			SupportedProtocolVersions: protocolVersions,
			Capabilities:              &mcp.ServerCapabilities{},
		})
	sess.addTools(srv)
	sess.addResources(srv)
	return srv
}
