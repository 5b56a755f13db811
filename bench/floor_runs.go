package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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
	floorAgentSQL   = `SELECT * FROM "agents" WHERE workspace_id = $1 AND id = $2 LIMIT $3`
	floorBindingSQL = `SELECT bindings.*, sandboxes.name AS sandbox_name, sandboxes.provider, sandboxes.url, agents.version AS agent_version ` +
		`FROM "bindings" JOIN sandboxes ON sandboxes.id = bindings.sandbox_id AND sandboxes.deleted_at IS NULL ` +
		`JOIN agents ON agents.id = bindings.agent_id WHERE bindings.agent_id IN ($1)`
	// The thread's row lock, its kept files and its instance: Threads.Lock.
	floorLockThreadSQL = `SELECT * FROM "threads" WHERE agent_id = $1 AND thread_key = $2 LIMIT $3 FOR UPDATE`
	floorKeptSQL       = `SELECT * FROM "kept_files" WHERE thread_id IN ($1) ORDER BY kept_at`
	floorInstanceSQL   = `SELECT * FROM "instances" WHERE id = $1 LIMIT $2`
	// Runs.Start, Threads.Ran and the audit entry.
	floorEndRunsSQL   = `UPDATE "runs" SET "ended_at"=$1,"status"=$2 WHERE thread_id = $3 AND status = $4`
	floorInsertRunSQL = `INSERT INTO "runs" ("id","workspace_id","agent_id","thread_id","status","sandbox_id","instance_id",` +
		`"created_instance","replaced","notice","started_at","last_activity_at","ended_at") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`
	floorRunSQL = `SELECT runs.*, threads.thread_key, sandboxes.name AS sandbox_name, sandboxes.provider, instances.provider_ref AS instance_ref ` +
		`FROM "runs" JOIN threads ON threads.id = runs.thread_id LEFT JOIN sandboxes ON sandboxes.id = runs.sandbox_id ` +
		`LEFT JOIN instances ON instances.id = runs.instance_id WHERE runs.workspace_id = $1 AND runs.id = $2 LIMIT $3`
	floorRanSQL   = `UPDATE "threads" SET "last_activity_at"=$1,"last_run_at"=$2 WHERE id = $3`
	floorAuditSQL = `INSERT INTO "audit_entries" ("id","workspace_id","at","token_id","token_name","action","resource_type",` +
		`"resource_id","outcome","detail") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`
)

// floorRunView is the answer: the run as the joined row reads.
type floorRunView struct {
	ID         string    `json:"id"`
	ThreadKey  string    `json:"thread_id"`
	SandboxID  string    `json:"sandbox_id"`
	InstanceID string    `json:"instance_id"`
	StartedAt  time.Time `json:"started_at"`
}

// startRun starts a run on a thread whose instance is live, as the server
// does: the agent and its binding, the sandbox; a transaction that locks
// the thread and reads its instance; the provider round trip; a second
// transaction that locks the thread again, ends its active run, records the
// new one, the thread's last run and the audit entry.
func (f floor) startRun(w http.ResponseWriter, r *http.Request) {
	tok, ok := f.actor(w, r)
	if !ok {
		return
	}
	ctx, ws, key := r.Context(), tok.WorkspaceID, r.PathValue("thread")
	agent, err := queryMap(ctx, f.runs, floorAgentSQL, ws, r.PathValue("id"), 1)
	if err != nil {
		floorNotFound(w, err, "agent")
		return
	}
	agentID := uuidText(agent["id"])
	binding, err := queryMap(ctx, f.runs, floorBindingSQL, agentID)
	if err != nil {
		floorNotFound(w, err, "binding")
		return
	}
	sandboxID := uuidText(binding["sandbox_id"])
	sb, err := queryMap(ctx, f.runs, floorGetSQL, ws, sandboxID)
	if err != nil {
		floorNotFound(w, err, "sandbox")
		return
	}
	var threadID, instanceID string
	err = pgx.BeginFunc(ctx, f.runs, func(tx pgx.Tx) error {
		threadID, instanceID, err = lockThread(ctx, tx, agentID, key)
		return err
	})
	if err != nil {
		floorNotFound(w, err, "thread")
		return
	}
	if instanceID == "" {
		internalError(w, fmt.Errorf("thread %s has no instance: the floor starts runs on warm threads only", key))
		return
	}
	select { // the provider round trip: the reconnect of the live instance
	case <-time.After(f.latency):
	case <-ctx.Done():
		return
	}
	runID, now := auxilia.NewID(), time.Now().UTC()
	var run map[string]any
	err = pgx.BeginFunc(ctx, f.runs, func(tx pgx.Tx) error {
		if _, _, err := lockThread(ctx, tx, agentID, key); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, floorEndRunsSQL, now, "completed", threadID, "active"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, floorInsertRunSQL, runID, ws, agentID, threadID, "active", sandboxID, instanceID,
			false, false, "", now, now, nil); err != nil {
			return err
		}
		if run, err = queryMap(ctx, tx, floorRunSQL, ws, runID, 1); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, floorRanSQL, now, now, threadID); err != nil {
			return err
		}
		detail := fmt.Sprintf("agent %q on thread %s, in instance %v of sandbox %q", agent["name"], key, run["instance_ref"], sb["name"])
		_, err := tx.Exec(ctx, floorAuditSQL, auxilia.NewID(), ws, now, tok.ID, tok.Name, "run.start", "run", runID, "success", detail)
		return err
	})
	if err != nil {
		internalError(w, err)
		return
	}
	w.Header().Set("Location", "/api/v1/runs/"+runID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(floorRunView{ID: runID, ThreadKey: key, SandboxID: sandboxID, InstanceID: instanceID, StartedAt: now})
}

// lockThread is Threads.Lock on a thread that exists: its row, locked, its
// kept files and its instance.
func lockThread(ctx context.Context, q floorQuerier, agentID, key string) (threadID, instanceID string, err error) {
	thread, err := queryMap(ctx, q, floorLockThreadSQL, agentID, key, 1)
	if err != nil {
		return "", "", err
	}
	threadID = uuidText(thread["id"])
	if _, err := queryMaps(ctx, q, floorKeptSQL, threadID); err != nil {
		return "", "", err
	}
	if thread["instance_id"] == nil {
		return threadID, "", nil
	}
	instanceID = uuidText(thread["instance_id"])
	if _, err := queryMap(ctx, q, floorInstanceSQL, instanceID, 1); err != nil {
		return "", "", err
	}
	return threadID, instanceID, nil
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
