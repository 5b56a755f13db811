package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The floor is what the two read routes cost without the server's
// framework: a bare net/http handler that sends the same SQL the server's
// GORM store sends (the token by its hash, its workspace, the sandboxes)
// through pgx, and writes the same JSON, byte for byte (the bench checks
// it). It runs as a process of its own, as the server does, so that both
// are loaded from the outside alike.

// The statements, as GORM writes them for the store's queries.
const (
	floorTokenSQL = `SELECT tokens.id, tokens.workspace_id, tokens.name, tokens.role, tokens.hash, tokens.created_at, ` +
		`tokens.last_used_at, tokens.revoked_at, workspaces.name AS ws_name, workspaces.created_at AS ws_created_at FROM tokens ` +
		`JOIN workspaces ON workspaces.id = tokens.workspace_id WHERE tokens.hash = $1 LIMIT 1`
	floorTouchSQL = `UPDATE "tokens" SET "last_used_at"=$1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)`
	floorListSQL  = `SELECT ` + floorSandboxColumns + ` FROM sandboxes WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY id LIMIT $2`
	floorGetSQL   = `SELECT ` + floorSandboxColumns + ` FROM sandboxes WHERE workspace_id = $1 AND deleted_at IS NULL AND id = $2 LIMIT 1`
	// The list's count of each sandbox's instances being created or live, which an admin sees.
	floorLiveSQL = `SELECT sandbox_id, COUNT(*) AS n FROM "instances" WHERE workspace_id = $1 AND status IN ($2,$3) ` +
		`AND sandbox_id = ANY($4) GROUP BY "sandbox_id"`

	floorSandboxColumns = `id, workspace_id, name, description, provider, url, config, secret_key_id, secret_ciphertext, ` +
		`secret_last4, secret_length, health_status, health_checked_at, health_latency_ms, health_detail, health_history, managed_by, ` +
		`version, created_at, updated_at, deleted_at`
)

// The server's default and largest page sizes, and how often it records a token's use.
const (
	floorPageSize   = 50
	floorTouchEvery = time.Minute
	// floorRunConns is the server's AUXILIA_DB_MAX_CONNECTIONS default.
	floorRunConns = 20
)

// floorMain serves the floor on 127.0.0.1:0 with the database at
// DATABASE_URL, until it is signalled.
func floorMain(args []string) error {
	fs := flag.NewFlagSet("floor", flag.ContinueOnError)
	conns := fs.Int("conns", 16, "pgx pool size of the reads")
	runConns := fs.Int("run-conns", floorRunConns, "pgx pool size of the run starts (the server's AUXILIA_DB_MAX_CONNECTIONS default)")
	latency := fs.Duration("latency", 20*time.Millisecond, "the provider round trip of a run start")
	providerKey := fs.String("provider-key", "", "the Daytona API key that the run starts under /calling send to reconnect their instance")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		return err
	}
	cfg.MaxConns = int32(*conns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	runCfg := cfg.Copy()
	runCfg.MaxConns = int32(*runConns)
	runs, err := pgxpool.NewWithConfig(ctx, runCfg)
	if err != nil {
		return err
	}
	defer runs.Close()
	f := floor{pool: pool, runs: runs, latency: *latency, provider: provider.NewHTTPClient(provider.Policy{}), providerKey: *providerKey, plans: &sync.Map{}}
	defer f.provider.CloseIdleConnections()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/sandboxes", f.list)
	mux.HandleFunc("GET /api/v1/sandboxes/{id}", f.get)
	mux.HandleFunc("POST /api/v1/agents/{id}/threads/{thread}/runs", f.startRun(f.wait))
	mux.HandleFunc("POST "+callingPrefix+"/api/v1/agents/{id}/threads/{thread}/runs", f.startRun(f.reconnect))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	log.Info("listening", "url", "http://"+ln.Addr().String())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type floor struct {
	pool        *pgxpool.Pool // the reads'
	runs        *pgxpool.Pool // the run starts', as large as the server's
	latency     time.Duration // the provider round trip of a run start, as a wait
	provider    *http.Client  // the provider round trip, as a call (floor_provider.go)
	providerKey string
	plans       *sync.Map // floorPlan by agent id (floor_pools.go)
}

// callingPrefix is where the floor's run starts call the provider instead
// of waiting for as long as it takes.
const callingPrefix = "/calling"

// Rows, by column name as SELECT * returns them: a column the struct lacks
// fails the scan, so a schema change cannot go unnoticed here.
type floorToken struct {
	ID          string     `db:"id"`
	WorkspaceID string     `db:"workspace_id"`
	Name        string     `db:"name"`
	Role        string     `db:"role"`
	Hash        string     `db:"hash"`
	CreatedAt   time.Time  `db:"created_at"`
	LastUsedAt  *time.Time `db:"last_used_at"`
	RevokedAt   *time.Time `db:"revoked_at"`
	WsName      string     `db:"ws_name"`
	WsCreatedAt time.Time  `db:"ws_created_at"`
}

type floorWorkspace struct {
	ID        string
	Name      string
	CreatedAt time.Time
}

type floorSandbox struct {
	ID               string     `db:"id"`
	WorkspaceID      string     `db:"workspace_id"`
	Name             string     `db:"name"`
	Description      string     `db:"description"`
	Provider         string     `db:"provider"`
	URL              string     `db:"url"`
	Config           string     `db:"config"`
	SecretKeyID      string     `db:"secret_key_id"`
	SecretCiphertext string     `db:"secret_ciphertext"`
	SecretLast4      string     `db:"secret_last4"`
	SecretLength     int        `db:"secret_length"`
	HealthStatus     string     `db:"health_status"`
	HealthCheckedAt  *time.Time `db:"health_checked_at"`
	HealthLatencyMS  *int       `db:"health_latency_ms"`
	HealthDetail     string     `db:"health_detail"`
	HealthHistory    string     `db:"health_history"`
	ManagedBy        string     `db:"managed_by"`
	Version          int        `db:"version"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
	DeletedAt        *time.Time `db:"deleted_at"`
}

// The answer's shape, as the API writes a sandbox.
type floorSandboxView struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Provider    string          `json:"provider"`
	URL         string          `json:"url"`
	HasSecret   bool            `json:"has_secret"`
	Config      json.RawMessage `json:"config"`
	Health      floorHealthView `json:"health"`
	ManagedBy   string          `json:"managed_by"`
	Pool        *floorPoolView  `json:"pool,omitempty"`
	// LiveInstances is shown in lists, to admins, as the bench's token is.
	LiveInstances *int      `json:"live_instances,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

type floorHealthView struct {
	Status    string           `json:"status"`
	CheckedAt *time.Time       `json:"checked_at"`
	LatencyMS *int             `json:"latency_ms"`
	Detail    string           `json:"detail"`
	History   []floorProbeView `json:"history"`
}

// floorPoolView is the pool status one sandbox's view shows. The bench's
// sandboxes have no pool: the floor reads its size from the config and
// shows it off, as the server does.
type floorPoolView struct {
	State    string     `json:"state"`
	Size     int        `json:"size"`
	Ready    int        `json:"ready"`
	Creating int        `json:"creating"`
	Failures int        `json:"failures"`
	Detail   string     `json:"detail"`
	RetryAt  *time.Time `json:"retry_at"`
}

type floorProbeView struct {
	At        time.Time `json:"at"`
	OK        bool      `json:"ok"`
	LatencyMS int       `json:"latency_ms"`
}

type floorList struct {
	Items         []floorSandboxView `json:"items"`
	NextPageToken string             `json:"next_page_token"`
}

func (r floorSandbox) view() floorSandboxView {
	var history []floorProbeView
	_ = json.Unmarshal([]byte(r.HealthHistory), &history)
	if history == nil {
		history = []floorProbeView{}
	}
	return floorSandboxView{
		ID: r.ID, Name: r.Name, Description: r.Description, Provider: r.Provider, URL: r.URL,
		HasSecret: r.SecretCiphertext != "", Config: json.RawMessage(r.Config),
		Health: floorHealthView{Status: r.HealthStatus, CheckedAt: r.HealthCheckedAt, LatencyMS: r.HealthLatencyMS,
			Detail: r.HealthDetail, History: history},
		ManagedBy: r.ManagedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

// workspace authenticates the bearer token as the server does and returns its workspace.
func (f floor) workspace(w http.ResponseWriter, r *http.Request) (floorWorkspace, bool) {
	tok, ok := f.authenticate(w, r, f.pool)
	return floorWorkspace{ID: tok.WorkspaceID, Name: tok.WsName, CreatedAt: tok.WsCreatedAt}, ok
}

// actor authenticates a run start's token on the run starts' pool.
func (f floor) actor(w http.ResponseWriter, r *http.Request) (floorToken, bool) {
	return f.authenticate(w, r, f.runs)
}

func (f floor) authenticate(w http.ResponseWriter, r *http.Request, pool *pgxpool.Pool) (floorToken, bool) {
	scheme, value, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	value = strings.TrimSpace(value)
	if !strings.EqualFold(scheme, "Bearer") || value == "" {
		http.Error(w, "no token", http.StatusUnauthorized)
		return floorToken{}, false
	}
	sum := sha256.Sum256([]byte(value))
	tok, err := queryOne[floorToken](r.Context(), pool, floorTokenSQL, hex.EncodeToString(sum[:]))
	if errors.Is(err, pgx.ErrNoRows) || err == nil && tok.RevokedAt != nil {
		http.Error(w, "unknown token", http.StatusUnauthorized)
		return floorToken{}, false
	}
	if err != nil {
		internalError(w, err)
		return floorToken{}, false
	}
	now := time.Now().UTC()
	if tok.LastUsedAt == nil || now.Sub(*tok.LastUsedAt) > floorTouchEvery {
		if _, err := pool.Exec(r.Context(), floorTouchSQL, now, tok.ID, now.Add(-floorTouchEvery)); err != nil {
			internalError(w, err)
			return floorToken{}, false
		}
	}
	return tok, true
}

func (f floor) list(w http.ResponseWriter, r *http.Request) {
	ws, ok := f.workspace(w, r)
	if !ok {
		return
	}
	rows, err := f.pool.Query(r.Context(), floorListSQL, ws.ID, floorPageSize+1)
	if err != nil {
		internalError(w, err)
		return
	}
	sandboxes, err := pgx.CollectRows(rows, pgx.RowToStructByName[floorSandbox])
	if err != nil {
		internalError(w, err)
		return
	}
	out := floorList{Items: make([]floorSandboxView, 0, min(len(sandboxes), floorPageSize))}
	for i, sb := range sandboxes {
		if i == floorPageSize {
			out.NextPageToken = base64.RawURLEncoding.EncodeToString([]byte(sandboxes[i-1].ID))
			break
		}
		out.Items = append(out.Items, sb.view())
	}
	if err := f.countLive(r.Context(), ws.ID, out.Items); err != nil {
		internalError(w, err)
		return
	}
	writeFloorJSON(w, out)
}

func (f floor) get(w http.ResponseWriter, r *http.Request) {
	ws, ok := f.workspace(w, r)
	if !ok {
		return
	}
	sb, err := queryOne[floorSandbox](r.Context(), f.pool, floorGetSQL, ws.ID, r.PathValue("id"))
	if errors.Is(err, pgx.ErrNoRows) {
		http.Error(w, "no such sandbox", http.StatusNotFound)
		return
	}
	if err != nil {
		internalError(w, err)
		return
	}
	var cfg struct {
		Pool struct{ Size int } `json:"pool"`
	}
	if err := json.Unmarshal([]byte(sb.Config), &cfg); err != nil || cfg.Pool.Size != 0 {
		internalError(w, fmt.Errorf("sandbox %s: the floor shows only sandboxes without a pool (%v)", sb.ID, err))
		return
	}
	view := sb.view()
	view.Pool = &floorPoolView{State: "off"}
	w.Header().Set("ETag", `"`+strconv.Itoa(sb.Version)+`"`)
	writeFloorJSON(w, view)
}

// countLive sets each listed sandbox's count of live instances.
func (f floor) countLive(ctx context.Context, workspaceID string, items []floorSandboxView) error {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	rows, err := f.pool.Query(ctx, floorLiveSQL, workspaceID, "creating", "live", ids)
	if err != nil {
		return err
	}
	counts := map[string]int{}
	var id string
	var n int
	if _, err := pgx.ForEachRow(rows, []any{&id, &n}, func() error { counts[id] = n; return nil }); err != nil {
		return err
	}
	for i := range items {
		n := counts[items[i].ID]
		items[i].LiveInstances = &n
	}
	return nil
}

func queryOne[T any](ctx context.Context, pool *pgxpool.Pool, sql string, args ...any) (T, error) {
	rows, err := pool.Query(ctx, sql, args...)
	if err != nil {
		var zero T
		return zero, err
	}
	return pgx.CollectOneRow(rows, pgx.RowToStructByName[T])
}

// writeFloorJSON encodes as Echo's c.JSON does: one json.Encoder, which ends with a newline.
func writeFloorJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_ = json.NewEncoder(w).Encode(v)
}

func internalError(w http.ResponseWriter, err error) {
	http.Error(w, fmt.Sprintf("floor: %v", err), http.StatusInternalServerError)
}
