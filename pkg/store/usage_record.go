package store

import (
	"context"
	"time"
)

// usageOfRun selects a run's attribution, for a row of usage_commands or
// usage_terminals: its workspace, sandbox, provider, agent and thread.
const usageOfRun = `SELECT r.id, r.workspace_id, r.sandbox_id, s.provider, r.agent_id, r.thread_id
	FROM runs r JOIN sandboxes s ON s.id = r.sandbox_id
	WHERE r.workspace_id = ? AND r.id = ?`

// Command meters a command the execute tool ran on the run, from its
// sending to its answer, in one statement.
func (s TenantRuns) Command(ctx context.Context, runID string, started, ended time.Time) error {
	return s.t.db.conn(ctx).Exec(`INSERT INTO usage_commands (run_id, workspace_id, sandbox_id, provider, agent_id, thread_id, started_at, ended_at)
		SELECT u.*, ?, ? FROM (`+usageOfRun+`) u`, stamp(started), stamp(ended), s.t.ws, runID).Error
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
