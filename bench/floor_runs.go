package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The floor of a warm run start: what the server's run service sends to
// the database for a run on a thread whose instance is live (pkg/run
// start.go and allocate.go, through pkg/store), as bare pgx, around one
// provider round trip, here a wait of the fake's latency. Reads that the
// server makes through GORM are the same statements, each row decoded.
const (
	// The agent with its binding: agents.go agentTable.Get.
	floorAgentSQL = `SELECT agents.*, bindings.sandbox_id AS binding_sandbox_id, bindings.tools AS binding_tools, ` +
		`bindings.approval_granted_by AS binding_approval_granted_by, bindings.approval_with_call AS binding_approval_with_call, ` +
		`bindings.created_at AS binding_created_at, bindings.updated_at AS binding_updated_at, ` +
		`sandboxes.name AS binding_sandbox_name, sandboxes.provider AS binding_provider, sandboxes.url AS binding_url ` +
		`FROM "agents" LEFT JOIN bindings ON bindings.agent_id = agents.id ` +
		`LEFT JOIN sandboxes ON sandboxes.id = bindings.sandbox_id AND sandboxes.deleted_at IS NULL ` +
		`WHERE agents.workspace_id = $1 AND agents.id = $2 LIMIT $3`
	// The thread's live instance, unlocked: threads.go StartView.
	floorLiveInstanceSQL = `SELECT instances.* FROM "threads" JOIN instances ON instances.id = threads.instance_id ` +
		`WHERE threads.workspace_id = $1 AND threads.agent_id = $2 AND threads.thread_key = $3 AND instances.status = $4 LIMIT $5`
	// The run recorded, in one round trip (runs.go StartOnInstance): the
	// thread's row, locked; its active run ended and the new one inserted;
	// the audit entry. Each does nothing unless the thread still has the
	// run's instance.
	floorStartOnInstanceSQL = `UPDATE threads SET last_run_at = $1, last_activity_at = $2 WHERE id = $3 AND workspace_id = $4 AND instance_id = $5::uuid`
	floorReplaceActiveSQL   = `WITH ended AS (UPDATE runs SET status = $1, ended_at = $2, ended_by = $3 WHERE thread_id = $4 AND status = 'active' ` +
		`AND EXISTS (SELECT 1 FROM threads WHERE id = $5 AND instance_id = $6::uuid) RETURNING id) ` +
		`INSERT INTO runs (id, workspace_id, agent_id, thread_id, status, sandbox_id, instance_id, created_instance, replaced, notice, ` +
		`started_at, last_activity_at, ended_at, ended_by) ` +
		`SELECT $7::uuid, $8::uuid, $9::uuid, $10::uuid, $11, $12::uuid, $13::uuid, $14::boolean, $15::boolean, $16, $17::timestamptz, ` +
		`$18::timestamptz, $19::timestamptz, $20 FROM (SELECT COUNT(*) FROM ended) AS ended_first ` +
		`WHERE EXISTS (SELECT 1 FROM threads WHERE id = $21 AND instance_id = $22::uuid)`
	floorAuditOfRunSQL = `INSERT INTO audit_entries (id, workspace_id, at, token_id, token_name, user_id, user_name, action, resource_type, ` +
		`resource_id, outcome, detail) SELECT $1::uuid, $2::uuid, $3::timestamptz, $4, $5, $6, $7, $8, $9, $10, $11, $12 ` +
		`WHERE EXISTS (SELECT 1 FROM runs WHERE id = $13)`
)

// floorBoundSandboxSQL is the sandbox an agent is bound to: threads.go StartView.
var floorBoundSandboxSQL = `SELECT sandboxes.` + strings.ReplaceAll(floorSandboxColumns, ", ", ", sandboxes.") +
	` FROM bindings JOIN sandboxes ON sandboxes.id = bindings.sandbox_id ` +
	`WHERE sandboxes.workspace_id = $1 AND bindings.agent_id = $2 AND sandboxes.deleted_at IS NULL LIMIT 1`

// floorRunView is the answer: the run as the joined row reads.
type floorRunView struct {
	ID         string    `json:"id"`
	ThreadKey  string    `json:"thread_id"`
	SandboxID  string    `json:"sandbox_id"`
	InstanceID string    `json:"instance_id"`
	StartedAt  time.Time `json:"started_at"`
}

// startRun starts a run on a thread whose instance is live, as the server
// does: one round trip that reads the thread's live instance, the agent
// with its binding and the sandbox bound; the provider round trip (trip);
// one round trip of three statements, one implicit transaction, that
// records the run on the thread (locking it), ends its active run, records
// the new one and the audit entry. A thread without a live instance is a
// new thread's first run, which its sandbox's warm pool serves with the
// view, where the agent's pool is known, or else in one more round trip
// (claimPooled).
func (f floor) startRun(trip providerTrip) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { f.serveRun(w, r, trip) }
}

func (f floor) serveRun(w http.ResponseWriter, r *http.Request, trip providerTrip) {
	tok, ok := f.actor(w, r)
	if !ok {
		return
	}
	ctx, ws, agentID, key := r.Context(), tok.WorkspaceID, r.PathValue("id"), r.PathValue("thread")
	// The thread's live instance, the agent with its binding, the sandbox
	// bound: one round trip.
	var look pgx.Batch
	look.Queue(floorLiveInstanceSQL, ws, agentID, key, "live", 1)
	look.Queue(floorAgentSQL, ws, agentID, 1)
	look.Queue(floorBoundSandboxSQL, ws, agentID)
	asked, planned := f.plans.Load(agentID)
	if planned {
		asked.(floorPlan).queueClaim(&look, ws, agentID, key)
	}
	results := f.runs.SendBatch(ctx, &look)
	inst, instErr := batchMap(results)
	agent, agentErr := batchMap(results)
	sb, sbErr := batchMap(results)
	var claimed map[string]any
	claimErr := pgx.ErrNoRows
	if planned {
		claimed, claimErr = batchMap(results)
	}
	if err := results.Close(); err != nil {
		internalError(w, err)
		return
	}
	switch {
	case agentErr != nil:
		floorNotFound(w, agentErr, "agent")
		return
	case sbErr != nil:
		floorNotFound(w, sbErr, "sandbox bound to the agent")
		return
	case errors.Is(instErr, pgx.ErrNoRows):
		switch {
		case planned && asked.(floorPlan).of(sb):
			inst, instErr = claimed, claimErr // the view claimed
		default:
			inst, instErr = f.claimPooled(ctx, ws, agentID, key, sb)
		}
		if errors.Is(instErr, pgx.ErrNoRows) {
			http.Error(w, "the warm pool has no ready instance (the floor makes none)", http.StatusServiceUnavailable)
			return
		}
	}
	if instErr != nil {
		internalError(w, instErr)
		return
	}
	sandboxID := uuidText(sb["id"])
	instanceID := uuidText(inst["id"])
	// The provider round trip: the reconnect of the live instance.
	if err := trip(ctx, sb, inst); err != nil {
		if ctx.Err() == nil {
			http.Error(w, "the provider: "+err.Error(), http.StatusBadGateway)
		}
		return
	}
	runID, now := auxilia.NewID(), time.Now().UTC()
	threadID := uuidText(inst["thread_id"])
	detail := fmt.Sprintf("agent %q on thread %s, in instance %v of sandbox %q", agent["name"], key, inst["provider_ref"], sb["name"])
	var b pgx.Batch
	b.Queue(floorStartOnInstanceSQL, now, now, threadID, ws, instanceID)
	b.Queue(floorReplaceActiveSQL, "completed", now, "newer_run", threadID, threadID, instanceID,
		runID, ws, agentID, threadID, "active", sandboxID, instanceID, false, false, "", now, now, nil, nil, threadID, instanceID)
	b.Queue(floorAuditOfRunSQL, auxilia.NewID(), ws, now, tok.ID, tok.Name, "", "", "run.start", "run", runID, "success", detail, runID)
	results = f.runs.SendBatch(ctx, &b)
	var inserted int64
	for i := range b.Len() {
		tag, err := results.Exec()
		if err != nil {
			_ = results.Close()
			internalError(w, err)
			return
		}
		if i == 1 {
			inserted = tag.RowsAffected()
		}
	}
	if err := results.Close(); err != nil {
		internalError(w, err)
		return
	}
	if inserted == 0 {
		http.Error(w, "the thread's instance changed", http.StatusConflict)
		return
	}
	w.Header().Set("Location", "/api/v1/runs/"+runID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(floorRunView{ID: runID, ThreadKey: key, SandboxID: sandboxID, InstanceID: instanceID, StartedAt: now})
}

// floorQuerier is a pool or a transaction.
type floorQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

var (
	_ floorQuerier = (*pgxpool.Pool)(nil)
	_ floorQuerier = pgx.Tx(nil)
)

// queryMaps decodes every column of every row, as scanning into a struct does.
func queryMaps(ctx context.Context, q floorQuerier, sql string, args ...any) ([]map[string]any, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToMap)
}

// batchMap decodes the one row of a batch's next query.
func batchMap(results pgx.BatchResults) (map[string]any, error) {
	rows, err := results.Query()
	if err != nil {
		return nil, err
	}
	return pgx.CollectOneRow(rows, pgx.RowToMap)
}

func queryMap(ctx context.Context, q floorQuerier, sql string, args ...any) (map[string]any, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectOneRow(rows, pgx.RowToMap)
}

// uuidText is a UUID column's value as text (pgx decodes one into 16 bytes).
func uuidText(v any) string {
	switch id := v.(type) {
	case [16]byte:
		return fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16])
	case string:
		return id
	default:
		return fmt.Sprint(v)
	}
}

func floorNotFound(w http.ResponseWriter, err error, what string) {
	if errors.Is(err, pgx.ErrNoRows) {
		http.Error(w, "no such "+what, http.StatusNotFound)
		return
	}
	internalError(w, err)
}
