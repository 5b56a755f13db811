package api

import (
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/labstack/echo/v4"
)

// Default body limits (both configurable).
const (
	DefaultJSONLimit   int64 = 1 << 20
	DefaultUploadLimit int64 = 64 << 20
)

// Config is everything the API needs to serve.
type Config struct {
	Log    *slog.Logger
	DB     Pinger
	Tokens TokenService
	// Sessions signs people in with the identity provider (nil: only
	// tokens authenticate).
	Sessions SessionService
	// People lists each workspace's people (nil: no such route).
	People    PeopleService
	Sandboxes SandboxService
	Agents    AgentService
	Runs      RunService
	// Pools shows each sandbox's warm pool in its view (nil: none shown).
	Pools PoolService
	// Networks applies a sandbox's edited network rules to its live
	// instances (nil: an edit applies them to none).
	Networks NetworkService
	// Instances lists and acts on sandboxes' live instances (nil: no routes).
	Instances InstanceService
	Audit     AuditLog
	// Usage reports what each workspace's instances used (nil: /usage answers 404).
	Usage       UsageReporter
	Idempotency IdempotencyStore
	// Quotas shows a workspace the limits the operator set on it, with their use.
	Quotas QuotaService
	// Alerts lists a workspace's alerts (nil: /alerts answers 404).
	Alerts AlertList
	// Keys seal the answers kept for Idempotency-Key replays.
	Keys *secret.Keyring
	// RunStartTimeout is the longest a run start may take (it may make an
	// instance): it keeps its Idempotency-Key that long while it has not
	// answered. Zero means the five minutes other creates have.
	RunStartTimeout time.Duration
	// OpenAPI is the contract served at /api/v1/openapi.yaml.
	OpenAPI []byte
	// SPA is the built web app, served at / (nil serves none).
	SPA fs.FS
	// Metrics counts requests; MetricsHandler serves /metrics (nil answers
	// 404 there: metrics are served elsewhere, or not at all).
	Metrics        auxilia.Metrics
	MetricsHandler http.Handler
	// RateLimit caps each token's requests per minute (0: no limit), counted in Rates.
	RateLimit int
	Rates     RateCounter
	// TerminalGrace is how long a terminal outlives its dropped WebSocket,
	// waiting to be taken back (0 means DefaultTerminalGrace).
	TerminalGrace time.Duration
	// Terminals, when given, holds the open shells, for the caller to end
	// them as it shuts down (Terminals.Stop).
	Terminals *Terminals
	// AllowedOrigins are the origins, as ParseOrigin returns them, whose
	// pages may call the MCP endpoints besides this server's own.
	AllowedOrigins []string
	// JSONLimit and UploadLimit cap request bodies (0 means the default).
	JSONLimit   int64
	UploadLimit int64
}

// TokenService is what the API needs of tokens: authentication and management.
type TokenService interface {
	Authenticator
	tokenService
	ticketService
}

// Pinger checks that a dependency answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// New returns the HTTP handler of the whole API.
func New(cfg Config) *echo.Echo {
	if cfg.JSONLimit == 0 {
		cfg.JSONLimit = DefaultJSONLimit
	}
	if cfg.UploadLimit == 0 {
		cfg.UploadLimit = DefaultUploadLimit
	}
	if cfg.RunStartTimeout == 0 {
		cfg.RunStartTimeout = unfinishedCreate
	}
	if cfg.TerminalGrace == 0 {
		cfg.TerminalGrace = DefaultTerminalGrace
	}
	if cfg.Metrics == nil {
		cfg.Metrics = auxilia.NoMetrics{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(cfg.Log)
	e.Use(inArrivalOrder, secureAnswers(), withRequestID(), logRequests(cfg.Log, cfg.Metrics), recoverPanics(cfg.Log), limitBodies(cfg.JSONLimit),
		refuseUnstorablePath(), answerNotModified)
	if cfg.Audit != nil {
		e.Use(auditRefusals(cfg.Audit, cfg.Log))
	}

	health := healthHandler{db: cfg.DB}
	e.GET("/healthz", health.live)
	e.GET("/readyz", health.ready)
	e.GET("/api/v1/openapi.yaml", specHandler(cfg.OpenAPI).serve)
	if cfg.MetricsHandler != nil {
		e.GET("/metrics", echo.WrapHandler(cfg.MetricsHandler))
	} else {
		e.GET("/metrics", func(echo.Context) error { return echo.ErrNotFound }) // not the SPA either
	}

	// Who calls first, then how often they may: a refused request counts too.
	v1 := newRoutes(e.Group("/api/v1"), authenticate(cfg.Tokens, cfg.Sessions))
	if cfg.RateLimit > 0 {
		v1.mw = append(v1.mw, rateLimit(cfg.Rates, cfg.RateLimit))
	}
	v1.mw = append(v1.mw, refuseUnstorableQuery())
	idem := idempotent(cfg.Idempotency, cfg.Keys, unfinishedCreate, cfg.Log)
	workspaceHandler{quotas: cfg.Quotas, people: cfg.People}.routes(v1)
	tokensHandler{svc: cfg.Tokens}.routes(v1, idem)
	sandboxesHandler{svc: cfg.Sandboxes, pools: cfg.Pools, networks: cfg.Networks, instances: cfg.Instances}.routes(v1, idem)
	if cfg.Instances != nil {
		instancesHandler{svc: cfg.Instances}.routes(v1)
	}
	agentsHandler{svc: cfg.Agents}.routes(v1, idem)
	runsHandler{svc: cfg.Runs, uploadLimit: cfg.UploadLimit}.routes(v1, idempotent(cfg.Idempotency, cfg.Keys, cfg.RunStartTimeout, cfg.Log))
	approvalsHandler{svc: cfg.Runs}.routes(v1)
	auditHandler{log: cfg.Audit}.routes(v1)
	if cfg.Alerts != nil {
		alertsHandler{alerts: cfg.Alerts}.routes(v1)
	}
	if cfg.Usage != nil {
		usageHandler{svc: cfg.Usage, now: time.Now}.routes(v1)
	}
	// The terminal's WebSocket takes a ticket instead of a token.
	terminal := newRoutes(e.Group("/api/v1"), authenticateTerminal(cfg.Tokens, cfg.Sessions))
	terminal.mw = append(terminal.mw, v1.mw[1:]...)
	newTerminalHandler(cfg).routes(v1, terminal)
	mountMCP(e, cfg)
	ssoHandler{svc: cfg.Sessions, log: cfg.Log}.routes(e)
	if cfg.SPA != nil {
		e.GET("/*", spaHandler(cfg.SPA))
	}
	return e
}

// routes registers routes with middleware of their own. (Echo's group
// middleware would add a catch-all route that turns every 405 into a 404.)
type routes struct {
	g  *echo.Group
	mw []echo.MiddlewareFunc
}

func newRoutes(g *echo.Group, mw ...echo.MiddlewareFunc) routes { return routes{g: g, mw: mw} }

func (r routes) add(method, path string, h echo.HandlerFunc, mw []echo.MiddlewareFunc) {
	r.g.Add(method, path, h, append(append([]echo.MiddlewareFunc{}, r.mw...), mw...)...)
}

func (r routes) GET(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.add(http.MethodGet, path, h, mw)
}

func (r routes) POST(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.add(http.MethodPost, path, h, mw)
}

func (r routes) PUT(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.add(http.MethodPut, path, h, mw)
}

func (r routes) PATCH(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.add(http.MethodPatch, path, h, mw)
}

func (r routes) DELETE(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	r.add(http.MethodDelete, path, h, mw)
}
