package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// UsageSnapshot returns every workspace's usage at now, for the metrics: its
// instances open in each state, its instance-seconds since monthStart, and
// its events counted ever, and its commands, terminals and kept files
// ever. Four queries.
func (s System) UsageSnapshot(ctx context.Context, monthStart, now time.Time) ([]auxilia.WorkspaceUsage, error) {
	conn := s.db.conn(ctx)
	byName := map[string]*auxilia.WorkspaceUsage{}
	var order []string
	of := func(name string) *auxilia.WorkspaceUsage {
		u := byName[name]
		if u == nil {
			u = &auxilia.WorkspaceUsage{Workspace: name, Instances: map[string]int{}, MonthSeconds: map[string]float64{}, Events: map[string]int64{}}
			byName[name] = u
			order = append(order, name)
		}
		return u
	}
	var open []struct {
		Name  string
		State string
		N     int
	}
	if err := conn.Raw(`SELECT w.name, u.state, COUNT(*) AS n FROM usage_intervals u JOIN workspaces w ON w.id = u.workspace_id
		WHERE u.ended_at IS NULL GROUP BY w.name, u.state`).Scan(&open).Error; err != nil {
		return nil, err
	}
	for _, o := range open {
		of(o.Name).Instances[o.State] = o.N
	}
	var month []struct {
		Name      string
		State     string
		StartedAt time.Time
		EndedAt   *time.Time
	}
	if err := conn.Raw(`SELECT w.name, u.state, u.started_at, u.ended_at FROM usage_intervals u JOIN workspaces w ON w.id = u.workspace_id
		WHERE u.started_at < ? AND (u.ended_at IS NULL OR u.ended_at > ?)`, now, monthStart).Scan(&month).Error; err != nil {
		return nil, err
	}
	for _, m := range month {
		of(m.Name).MonthSeconds[m.State] += within(m.StartedAt, m.EndedAt, monthStart, now).Seconds()
	}
	var events []struct {
		Name string
		Kind string
		N    int64
	}
	if err := conn.Raw(`SELECT w.name, u.kind, COUNT(*) AS n FROM usage_events u JOIN workspaces w ON w.id = u.workspace_id
		GROUP BY w.name, u.kind`).Scan(&events).Error; err != nil {
		return nil, err
	}
	for _, e := range events {
		of(e.Name).Events[e.Kind] = e.N
	}
	seconds := func(from, to string) string {
		if s.db.dialect == Postgres {
			return "EXTRACT(EPOCH FROM (" + to + " - " + from + "))"
		}
		return "((julianday(" + to + ") - julianday(" + from + ")) * 86400.0)"
	}
	var spans []struct {
		Name    string
		Kind    string
		N       int64
		Seconds float64
		Bytes   int64
	}
	if err := conn.Raw(`SELECT w.name, 'command' AS kind, COUNT(*) AS n, COALESCE(SUM(`+seconds("u.started_at", "u.ended_at")+`), 0) AS seconds, 0 AS bytes
		FROM usage_commands u JOIN workspaces w ON w.id = u.workspace_id GROUP BY w.name
		UNION ALL
		SELECT w.name, 'terminal', COUNT(*), COALESCE(SUM(`+seconds("u.started_at", "COALESCE(u.ended_at, u.seen_at)")+`), 0), 0
		FROM usage_terminals u JOIN workspaces w ON w.id = u.workspace_id GROUP BY w.name
		UNION ALL
		SELECT w.name, 'kept', COUNT(*), COALESCE(SUM(u.bytes * `+seconds("u.started_at", "COALESCE(u.ended_at, ?)")+`), 0),
		       COALESCE(SUM(CASE WHEN u.ended_at IS NULL THEN u.bytes ELSE 0 END), 0)
		FROM usage_kept u JOIN workspaces w ON w.id = u.workspace_id GROUP BY w.name`, now).Scan(&spans).Error; err != nil {
		return nil, err
	}
	for _, sp := range spans {
		u := of(sp.Name)
		switch sp.Kind {
		case auxilia.UsageCommand:
			u.Commands, u.CommandSeconds = sp.N, sp.Seconds
		case auxilia.UsageTerminal:
			u.TerminalSeconds = sp.Seconds
		case auxilia.UsageKept:
			u.KeptByteSeconds, u.KeptBytes = sp.Seconds, sp.Bytes
		}
	}
	out := make([]auxilia.WorkspaceUsage, len(order))
	for i, name := range order {
		out[i] = *byName[name]
	}
	return out, nil
}
