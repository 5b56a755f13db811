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
	// The agent with its binding: agents.go agentTable.Get.
	floorAgentSQL = `SELECT agents.*, bindings.sandbox_id AS binding_sandbox_id, bindings.tools AS binding_tools, ` +
		`bindings.approval_granted_by AS binding_approval_granted_by, bindings.approval_with_call AS binding_approval_with_call, ` +
		`bindings.created_at AS binding_created_at, bindings.updated_at AS binding_updated_at, ` +
		`sandboxes.name AS binding_sandbox_name, sandboxes.provider AS binding_provider, sandboxes.url AS binding_url ` +
		`FROM "agents" LEFT JOIN bindings ON bindings.agent_id = agents.id ` +
		`LEFT JOIN sandboxes ON sandboxes.id = bindings.sandbox_id AND sandboxes.deleted_at IS NULL ` +
		`WHERE agents.workspace_id = $1 AND agents.id = $2 LIMIT $3`
	// The thread's live instance, unlocked: threads.go LiveInstance.
	floorLiveInstanceSQL = `SELECT instances.* FROM "threads" JOIN instances ON instances.id = threads.instance_id ` +
		`WHERE threads.workspace_id = $1 AND threads.agent_id = $2 AND threads.thread_key = $3 AND instances.status = $4 LIMIT $5`
	// The thread's run recorded and its row locked: threads.go Ran.
	floorRanSQL = `UPDATE threads SET last_run_at = $1, last_activity_at = $2 ` +
		`WHERE workspace_id = $3 AND agent_id = $4 AND thread_key = $5 RETURNING id, instance_id`
	// Runs.Start and the audit entry.
	floorEndRunsSQL   = `UPDATE "runs" SET "ended_at"=$1,"ended_by"=$2,"status"=$3 WHERE thread_id = $4 AND status = $5`
	floorInsertRunSQL = `INSERT INTO "runs" ("id","workspace_id","agent_id","thread_id","status","sandbox_id","instance_id",` +
		`"created_instance","replaced","notice","started_at","last_activity_at","ended_at") VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`
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
// does: the agent with its binding, the sandbox, the thread's live
// instance; the provider round trip; one transaction that records the run
// on the thread (locking it), ends its active run, records the new one and
// the audit entry.
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
	if agent["binding_sandbox_id"] == nil {
		http.Error(w, "the agent has no sandbox", http.StatusConflict)
		return
	}
	sandboxID := uuidText(agent["binding_sandbox_id"])
	sb, err := queryMap(ctx, f.runs, floorGetSQL, ws, sandboxID)
	if err != nil {
		floorNotFound(w, err, "sandbox")
		return
	}
	inst, err := queryMap(ctx, f.runs, floorLiveInstanceSQL, ws, agentID, key, "live", 1)
	if err != nil {
		floorNotFound(w, err, "live instance (the floor starts runs on warm threads only)")
		return
	}
	instanceID := uuidText(inst["id"])
	select { // the provider round trip: the reconnect of the live instance
	case <-time.After(f.latency):
	case <-ctx.Done():
		return
	}
	runID, now := auxilia.NewID(), time.Now().UTC()
	err = pgx.BeginFunc(ctx, f.runs, func(tx pgx.Tx) error {
		var threadID, current string
		if err := tx.QueryRow(ctx, floorRanSQL, now, now, ws, agentID, key).Scan(&threadID, &current); err != nil {
			return err
		}
		if current != instanceID {
			return fmt.Errorf("the thread's instance changed")
		}
		if _, err := tx.Exec(ctx, floorEndRunsSQL, now, "newer_run", "completed", threadID, "active"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, floorInsertRunSQL, runID, ws, agentID, threadID, "active", sandboxID, instanceID,
			false, false, "", now, now, nil); err != nil {
			return err
		}
		detail := fmt.Sprintf("agent %q on thread %s, in instance %v of sandbox %q", agent["name"], key, inst["provider_ref"], sb["name"])
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
