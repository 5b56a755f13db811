package store

import (
	"context"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TenantUsage reads what the workspace's instances used. The rows are
// written by the database's own triggers on instances (migration 0013), in
// the statement of each lifecycle transition; nothing here writes them.
type TenantUsage struct{ t Tenant }

// Usage returns the workspace's metered usage.
func (t Tenant) Usage() TenantUsage { return TenantUsage{t} }

// usageNames joins the names a report shows beside each id; a deleted
// agent or thread leaves its id with no name.
const usageNames = `COALESCE(s.name, '') AS sandbox_name, COALESCE(a.name, '') AS agent_name, COALESCE(th.thread_key, '') AS thread_key
	FROM %s u
	LEFT JOIN sandboxes s ON s.id = u.sandbox_id
	LEFT JOIN agents a ON a.id = u.agent_id
	LEFT JOIN threads th ON th.id = u.thread_id`

type usageRow struct {
	InstanceID  string
	WorkspaceID string
	SandboxID   string
	SandboxName string
	Provider    string
	AgentID     *string
	AgentName   string
	ThreadID    *string
	ThreadKey   string
	State       string
	StartedAt   time.Time
	EndedAt     *time.Time
	Kind        string
	At          time.Time
	Bytes       int64
}

func (r usageRow) ids() (agent, thread string) {
	if r.AgentID != nil {
		agent = *r.AgentID
	}
	if r.ThreadID != nil {
		thread = *r.ThreadID
	}
	return agent, thread
}

// Intervals returns the workspace's intervals that overlap [from, to),
// open ones included, in the order they started.
func (s TenantUsage) Intervals(ctx context.Context, from, to time.Time) ([]auxilia.UsageInterval, error) {
	return usageIntervals(ctx, s.t.db, &s.t.ws, from, to)
}

// usageIntervals returns the intervals of the workspace ws (nil: of every
// workspace) that overlap [from, to).
func usageIntervals(ctx context.Context, db *DB, ws *string, from, to time.Time) ([]auxilia.UsageInterval, error) {
	var rows []usageRow
	where, args := ofWorkspace(ws, to, from)
	err := db.conn(ctx).Raw(`SELECT u.instance_id, u.workspace_id, u.sandbox_id, u.provider, u.agent_id, u.thread_id, u.state, u.started_at, u.ended_at, `+
		sprintfNames("usage_intervals")+`
		WHERE `+where+`u.started_at < ? AND (u.ended_at IS NULL OR u.ended_at > ?)
		ORDER BY u.started_at, u.id`, args...).Scan(&rows).Error
	out := make([]auxilia.UsageInterval, len(rows))
	for i, r := range rows {
		agent, thread := r.ids()
		out[i] = auxilia.UsageInterval{InstanceID: r.InstanceID, WorkspaceID: r.WorkspaceID, SandboxID: r.SandboxID, SandboxName: r.SandboxName,
			Provider: r.Provider, AgentID: agent, AgentName: r.AgentName, ThreadID: thread, ThreadKey: r.ThreadKey,
			State: r.State, Start: r.StartedAt.UTC()}
		if r.EndedAt != nil {
			out[i].End = r.EndedAt.UTC()
		}
	}
	return out, err
}

// Events returns the workspace's counted events in [from, to), oldest first.
func (s TenantUsage) Events(ctx context.Context, from, to time.Time) ([]auxilia.UsageEvent, error) {
	return usageEvents(ctx, s.t.db, &s.t.ws, from, to)
}

// usageEvents returns the events of the workspace ws (nil: of every
// workspace) in [from, to).
func usageEvents(ctx context.Context, db *DB, ws *string, from, to time.Time) ([]auxilia.UsageEvent, error) {
	var rows []usageRow
	where, args := ofWorkspace(ws, from, to)
	err := db.conn(ctx).Raw(`SELECT u.instance_id, u.workspace_id, u.sandbox_id, u.provider, u.agent_id, u.thread_id, u.kind, u.at, `+
		sprintfNames("usage_events")+`
		WHERE `+where+`u.at >= ? AND u.at < ?
		ORDER BY u.at, u.id`, args...).Scan(&rows).Error
	out := make([]auxilia.UsageEvent, len(rows))
	for i, r := range rows {
		agent, thread := r.ids()
		out[i] = auxilia.UsageEvent{InstanceID: r.InstanceID, WorkspaceID: r.WorkspaceID, SandboxID: r.SandboxID, SandboxName: r.SandboxName,
			Provider: r.Provider, AgentID: agent, AgentName: r.AgentName, ThreadID: thread, ThreadKey: r.ThreadKey,
			Kind: r.Kind, At: r.At.UTC()}
	}
	return out, err
}

func sprintfNames(table string) string { return fmt.Sprintf(usageNames, table) }

// ofWorkspace is the condition that keeps to the workspace ws (none when
// ws is nil), to put before a query's own, with the arguments of both.
func ofWorkspace(ws *string, args ...any) (string, []any) {
	if ws == nil {
		return "", args
	}
	return "u.workspace_id = ? AND ", append([]any{*ws}, args...)
}

// Spans returns the workspace's commands, terminals and kept files that
// overlap [from, to), as intervals whose State says which, in the order
// they started. A terminal unseen for auxilia.UsageTerminalStale at now
// (its server died) ends when it was last seen.
func (s TenantUsage) Spans(ctx context.Context, from, to, now time.Time) ([]auxilia.UsageInterval, error) {
	return usageSpans(ctx, s.t.db, &s.t.ws, from, to, now)
}

// usageSpans returns the spans of the workspace ws (nil: of every
// workspace) that overlap [from, to).
func usageSpans(ctx context.Context, db *DB, ws *string, from, to, now time.Time) ([]auxilia.UsageInterval, error) {
	stale := now.Add(-auxilia.UsageTerminalStale)
	where, args := "", []any{to, from, stale, to, from, to, from}
	if ws != nil {
		where, args = "workspace_id = ? AND ", []any{*ws, to, from, stale, *ws, to, from, *ws, to, from}
	}
	var rows []usageRow
	err := db.conn(ctx).Raw(`SELECT u.workspace_id, u.sandbox_id, u.provider, u.agent_id, u.thread_id, u.state, u.started_at, u.ended_at, u.bytes, `+
		sprintfNames(`(
			SELECT workspace_id, sandbox_id, provider, agent_id, thread_id, 'command' AS state, started_at, ended_at, 0 AS bytes, id AS seq
			FROM usage_commands WHERE `+where+`started_at < ? AND ended_at >= ?
			UNION ALL
			SELECT workspace_id, sandbox_id, provider, agent_id, thread_id, 'terminal', started_at,
			       CASE WHEN ended_at IS NULL AND seen_at < ? THEN seen_at ELSE ended_at END, 0, 0
			FROM usage_terminals WHERE `+where+`started_at < ? AND (ended_at IS NULL OR ended_at > ?)
			UNION ALL
			SELECT workspace_id, sandbox_id, provider, agent_id, thread_id, 'kept', started_at, ended_at, bytes, 0
			FROM usage_kept WHERE `+where+`started_at < ? AND (ended_at IS NULL OR ended_at > ?)
		)`)+`
		ORDER BY u.started_at, u.state, u.seq`, args...).Scan(&rows).Error
	out := make([]auxilia.UsageInterval, len(rows))
	for i, r := range rows {
		agent, thread := r.ids()
		out[i] = auxilia.UsageInterval{WorkspaceID: r.WorkspaceID, SandboxID: r.SandboxID, SandboxName: r.SandboxName,
			Provider: r.Provider, AgentID: agent, AgentName: r.AgentName, ThreadID: thread, ThreadKey: r.ThreadKey,
			State: r.State, Start: r.StartedAt.UTC(), Bytes: r.Bytes}
		if r.EndedAt != nil {
			out[i].End = r.EndedAt.UTC()
		}
	}
	return out, err
}
