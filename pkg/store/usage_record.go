package store

import (
	"context"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// usageOfRun selects a run's attribution, for a row of usage_terminals:
// its workspace, sandbox, provider, agent and thread.
const usageOfRun = `SELECT r.id, r.workspace_id, r.sandbox_id, s.provider, r.agent_id, r.thread_id
	FROM runs r JOIN sandboxes s ON s.id = r.sandbox_id
	WHERE r.workspace_id = ? AND r.id = ?`

// Commands meters commands the execute tool ran on the workspace's runs,
// each from its sending to its answer, in one statement however many. Each
// names its run's attribution, as the run service read it in this
// workspace: nothing is looked up again.
func (s TenantRuns) Commands(ctx context.Context, uses []auxilia.CommandUse) error {
	if len(uses) == 0 {
		return nil
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO usage_commands (run_id, workspace_id, sandbox_id, provider, agent_id, thread_id, started_at, ended_at) VALUES `)
	args := make([]any, 0, 8*len(uses))
	for i, u := range uses {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, ?, ?)")
		args = append(args, u.RunID, s.t.ws, u.SandboxID, u.Provider, u.AgentID, u.ThreadID, stamp(u.Started), stamp(u.Ended))
	}
	return s.t.db.conn(ctx).Exec(q.String(), args...).Error
}

// TerminalOpened meters a terminal, id, opened on the run at `at`.
func (s TenantRuns) TerminalOpened(ctx context.Context, runID, id string, at time.Time) error {
	return s.t.db.conn(ctx).Exec(`INSERT INTO usage_terminals (id, run_id, workspace_id, sandbox_id, provider, agent_id, thread_id, started_at, seen_at)
		SELECT ?, u.*, ?, ? FROM (`+usageOfRun+`) u`, id, stamp(at), stamp(at), s.t.ws, runID).Error
}

// TerminalSeen records that the open terminal id was still open at `at`.
func (s TenantRuns) TerminalSeen(ctx context.Context, id string, at time.Time) error {
	return s.t.db.conn(ctx).Exec(`UPDATE usage_terminals SET seen_at = ? WHERE workspace_id = ? AND id = ? AND ended_at IS NULL`,
		stamp(at), s.t.ws, id).Error
}

// TerminalClosed ends the terminal id's usage at `at`.
func (s TenantRuns) TerminalClosed(ctx context.Context, id string, at time.Time) error {
	return s.t.db.conn(ctx).Exec(`UPDATE usage_terminals SET seen_at = ?, ended_at = ? WHERE workspace_id = ? AND id = ? AND ended_at IS NULL`,
		stamp(at), stamp(at), s.t.ws, id).Error
}

// stamp is t as the database keeps it: UTC, to the microsecond.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
