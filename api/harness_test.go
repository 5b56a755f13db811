package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sandboxes "github.com/auxilia/sandboxes"
	"github.com/auxilia/sandboxes/api"
	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/local"
	"github.com/auxilia/sandboxes/pkg/provider/local/localtest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/sso"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// env is a running API on a real database, with tokens of every kind.
type env struct {
	t       *testing.T
	db      *store.DB
	echo    *echo.Echo
	srv     *httptest.Server
	logs    *syncBuffer
	admin   string // admin of workspace "default"
	member  string // member of workspace "default"
	foreign string // admin of workspace "other"
	app     *app.App
	dataDir string // the local provider's
	// terminals are the server's open shells, which a test may stop as a shutdown does.
	terminals *api.Terminals
}

// options change the server an env runs.
type options struct {
	policy       provider.Policy
	operator     provider.OperatorValues
	kinds        []provider.Kind // nil: the built-in providers
	probeTimeout time.Duration
	rateLimit    int
	// runStartTimeout is how long an unfinished run start keeps its Idempotency-Key.
	runStartTimeout time.Duration
	// run tunes the run service (its idle job's clock, for one).
	run run.Options
	// terminalGrace is how long a terminal outlives its dropped connection.
	terminalGrace time.Duration
	// allowedOrigins may call the MCP endpoints from their pages.
	allowedOrigins []string
	// spa is the web app served at / (nil: none).
	spa fs.FS
	// localCeilings are the built-in local provider's (zero: its own bounds).
	localCeilings local.Ceilings
	// uploadLimit bounds uploads and downloads (0: the server's default).
	uploadLimit int64
	// oidc, when set, turns single sign-on on: it is given the server's
	// callback URL and returns the provider's configuration.
	oidc func(redirectURL string) sso.Config
}

func newEnv(t *testing.T, db *store.DB, opts ...func(*options)) *env {
	t.Helper()
	ctx := context.Background()
	var o options
	for _, f := range opts {
		f(&o)
	}
	logs := &syncBuffer{}
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(t, err)
	dataDir := t.TempDir()
	if o.kinds == nil {
		// The built-in local provider's first instance copies the test
		// process's Python template instead of making one of its own.
		localtest.Seed(t, dataDir)
	}
	a := app.New(db, keys, app.Options{DataDir: dataDir, Policy: o.policy, Operator: o.operator,
		LocalCeilings: o.localCeilings, Kinds: o.kinds, ProbeTimeout: o.probeTimeout, Run: o.run})
	// Meters written after their commands' answers are written before the database closes.
	t.Cleanup(func() { _ = a.Runs.FlushMeters(context.Background()) })
	tokens := a.Tokens
	terminals := new(api.Terminals)
	srv := httptest.NewUnstartedServer(nil)
	var sessions api.SessionService
	if o.oidc != nil {
		sessions = app.NewSessions(db, keys, o.oidc("http://"+srv.Listener.Addr().String()+"/auth/oidc/callback"))
	}
	e := api.New(a.API(api.Config{
		Sessions:        sessions,
		Log:             slog.New(slog.NewJSONHandler(logs, nil)),
		JSONLimit:       64 << 10,
		UploadLimit:     o.uploadLimit,
		RateLimit:       o.rateLimit,
		RunStartTimeout: o.runStartTimeout,
		TerminalGrace:   o.terminalGrace,
		Terminals:       terminals,
		AllowedOrigins:  o.allowedOrigins,
		SPA:             o.spa,
	}))
	srv.Config.Handler = e
	srv.Start()
	t.Cleanup(srv.Close)
	issue := func(ws string, role auxilia.Role) string {
		issued, err := tokens.Issue(ctx, ws, string(role)+"@"+ws, role)
		require.NoError(t, err)
		return issued.Value
	}
	return &env{t: t, db: db, echo: e, srv: srv, logs: logs,
		admin: issue("default", auxilia.RoleAdmin), member: issue("default", auxilia.RoleMember),
		foreign: issue("other", auxilia.RoleAdmin), app: a, dataDir: dataDir, terminals: terminals}
}

// serveSPA runs the server as newEnv wires it, on SQLite, serving files as
// the web app: for the tests of the pages alone.
func serveSPA(t *testing.T, files fs.FS) *httptest.Server {
	t.Helper()
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(t, err)
	a := app.New(storetest.Open(t, store.SQLite), keys, app.Options{DataDir: t.TempDir()})
	srv := httptest.NewServer(api.New(a.API(api.Config{SPA: files})))
	t.Cleanup(srv.Close)
	return srv
}

// response is an answer already checked against openapi.yaml.
type response struct {
	*http.Response
	body []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.body, &m), "body: %s", r.body)
	return m
}

// call sends a request as the given token ("" for none) and checks the
// answer against openapi.yaml. body may be a string (sent as is) or any
// value (sent as JSON).
func (e *env) call(method, path, tok string, body any, headers ...string) response {
	e.t.Helper()
	r := e.send(method, path, tok, body, headers...)
	checkAgainstSpec(e.t, r.Request, r.Response, r.body)
	return r
}

// send is call without the check, for an answer that names what
// openapi.yaml cannot list: a provider added only in a test.
func (e *env) send(method, path, tok string, body any, headers ...string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		js, err := json.Marshal(b)
		require.NoError(e.t, err)
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	require.NoError(e.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	// A header given here replaces the default; given twice, it is sent as two lines.
	given := map[string]bool{}
	for i := 0; i+1 < len(headers); i += 2 {
		if given[headers[i]] {
			req.Header.Add(headers[i], headers[i+1])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
		given[headers[i]] = true
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	return response{Response: res, body: out}
}

var (
	specOnce   sync.Once
	specDoc    *openapi3.T
	specRouter routers.Router
	specErr    error
)

// loadSpec reads openapi.yaml once and checks it.
func loadSpec(t *testing.T) *openapi3.T {
	t.Helper()
	specOnce.Do(func() {
		// openapi.yaml is served as YAML text, as the contract declares it.
		openapi3filter.RegisterBodyDecoder("application/yaml", openapi3filter.PlainBodyDecoder)
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(sandboxes.OpenAPI)
		if err != nil {
			specErr = err
			return
		}
		if specErr = doc.Validate(loader.Context); specErr == nil {
			specDoc = doc
			specRouter, specErr = gorillamux.NewRouter(doc)
		}
	})
	require.NoError(t, specErr, "openapi.yaml")
	return specDoc
}

// checkAgainstSpec fails the test when an answer is not what openapi.yaml
// promises for its route: an undocumented status, or a body off its schema.
func checkAgainstSpec(t *testing.T, req *http.Request, res *http.Response, body []byte) {
	t.Helper()
	loadSpec(t)
	route, params, err := specRouter.FindRoute(req)
	if err != nil {
		return // routes the API does not have (404/405 tests) are not in the spec
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode,
		Header: res.Header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true}}
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), out),
		"%s %s answered %d, which openapi.yaml does not describe: %s", req.Method, req.URL.Path, res.StatusCode, body)
	checkProblemMembers(t, res, body)
}

// checkProblemMembers fails the test when a problem carries a member the
// Problem schema does not declare (it allows any, so the check above
// would let one through): generated clients would drop it.
func checkProblemMembers(t *testing.T, res *http.Response, body []byte) {
	t.Helper()
	if res.Header.Get("Content-Type") != "application/problem+json" {
		return
	}
	var members map[string]any
	require.NoError(t, json.Unmarshal(body, &members), "%s", body)
	declared := specDoc.Components.Schemas["Problem"].Value.Properties
	for name := range members {
		assert.Contains(t, declared, name, "a %v problem carries %s, which the Problem schema does not declare", res.StatusCode, name)
	}
}

// problem asserts that r is a problem+json with the given status and reason.
func (r response) problem(t *testing.T, status int, reason string) map[string]any {
	t.Helper()
	require.Equal(t, status, r.StatusCode, "body: %s", r.body)
	require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"))
	p := r.json(t)
	require.Equal(t, reason, p["reason"], "body: %s", r.body)
	require.EqualValues(t, status, p["status"])
	require.Equal(t, "https://auxilia.dev/problems/"+reason, p["type"])
	require.NotEmpty(t, p["title"])
	require.NotEmpty(t, p["detail"])
	return p
}

// fields lists the names of the broken fields of a 422 problem.
func fields(p map[string]any) []string {
	var out []string
	errs, _ := p["errors"].([]any)
	for _, e := range errs {
		out = append(out, e.(map[string]any)["field"].(string))
	}
	return out
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// eachDB runs fn against a fresh API on each database engine.
func eachDB(t *testing.T, fn func(t *testing.T, e *env), opts ...func(*options)) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) { fn(t, newEnv(t, db, opts...)) })
}
