// Package usage turns the intervals and events the database metered with
// each instance's lifecycle into reports: instance-seconds by state and
// counted events per hour or day, per sandbox, agent, thread or provider,
// with an estimated cost where the operator gave rates.
package usage

import (
	"sort"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// GroupBy is what a report's rows are split by; "" totals the workspace.
type GroupBy string

// The groupings a report may have.
const (
	Total    GroupBy = ""
	Sandbox  GroupBy = "sandbox"
	Agent    GroupBy = "agent"
	Thread   GroupBy = "thread"
	Provider GroupBy = "provider"
)

// Groupings lists the group_by values a caller may ask for.
var Groupings = []string{string(Sandbox), string(Agent), string(Thread), string(Provider)}

// Granularity is the length of a report's periods.
type Granularity string

// The periods a report may have, each aligned on UTC.
const (
	Hour Granularity = "hour"
	Day  Granularity = "day"
)

// Granularities lists the granularity values a caller may ask for.
var Granularities = []string{string(Hour), string(Day)}

// Query asks for the usage in [From, To).
type Query struct {
	From, To    time.Time
	GroupBy     GroupBy
	Granularity Granularity
}

// Measures are what was used: instance-seconds by state and counted
// instance events, commands with their seconds, terminal seconds, and kept
// files' bytes times the seconds they were kept.
type Measures struct {
	RunningSeconds  float64
	PausedSeconds   float64
	Created         int
	Failed          int
	Replaced        int
	Commands        int
	CommandSeconds  float64
	TerminalSeconds float64
	KeptByteSeconds float64
}

// bytesPerGiB and secondsPerDay turn kept byte-seconds into GiB-days.
const (
	bytesPerGiB   = 1 << 30
	secondsPerDay = 24 * 3600
)

// KeptByteDays is the kept files' bytes times the days they were kept.
func (m Measures) KeptByteDays() float64 { return m.KeptByteSeconds / secondsPerDay }

func (m *Measures) add(o Measures) {
	m.RunningSeconds += o.RunningSeconds
	m.PausedSeconds += o.PausedSeconds
	m.Created += o.Created
	m.Failed += o.Failed
	m.Replaced += o.Replaced
	m.Commands += o.Commands
	m.CommandSeconds += o.CommandSeconds
	m.TerminalSeconds += o.TerminalSeconds
	m.KeptByteSeconds += o.KeptByteSeconds
}

// cost prices m at r: it is linear, so a sum's cost is its parts' costs.
func (m Measures) cost(r Rate) float64 {
	return m.RunningSeconds/3600*r.RunningHour + m.PausedSeconds/3600*r.PausedHour +
		m.KeptByteSeconds/secondsPerDay/bytesPerGiB*r.KeptGiBDay
}

// Row is the usage of one period by one group.
type Row struct {
	PeriodStart time.Time
	PeriodEnd   time.Time
	// Key identifies the group (a sandbox, agent or thread id, or a
	// provider's name); Name is what people call it. Both are empty in a
	// total, and for usage that belongs to no agent or thread (a pool's
	// unclaimed instances).
	Key, Name string
	Measures
	// EstimatedCost is the rates times the usage, nil unless every
	// provider in the row has a rate.
	EstimatedCost *float64
}

// Usage is what a report sums: the hours in [RolledFrom, RolledTo) summed
// already (the rollup; none when both are zero), and for the rest of the
// report's span the metered rows themselves.
type Usage struct {
	Hours                []auxilia.UsageHour
	RolledFrom, RolledTo time.Time
	Intervals            []auxilia.UsageInterval // instances' intervals, commands, terminals, kept files
	Events               []auxilia.UsageEvent
}

// Report sums the usage into rows of q's periods and groups, oldest period
// first, then by key. Open intervals count until now. Only periods with
// some usage have rows.
func Report(q Query, u Usage, now time.Time, rates Rates) []Row {
	type acc struct {
		row     Row
		cost    float64
		unrated bool
	}
	type key struct {
		period time.Time
		group  string
	}
	rows := map[key]*acc{}
	sum(q, u, now, func(period time.Time, a Attribution, m Measures) {
		g := groupOf(q.GroupBy, a)
		k := key{period, g.key}
		r := rows[k]
		if r == nil {
			end := q.Granularity.next(period)
			r = &acc{row: Row{PeriodStart: maxTime(period, q.From), PeriodEnd: minTime(end, q.To), Key: g.key, Name: g.name}}
			rows[k] = r
		}
		r.row.add(m)
		rate, rated := rates[a.Provider]
		r.cost += m.cost(rate)
		r.unrated = r.unrated || !rated
	})
	out := make([]Row, 0, len(rows))
	for _, a := range rows {
		if len(rates) > 0 && !a.unrated {
			cost := a.cost
			a.row.EstimatedCost = &cost
		}
		out = append(out, a.row)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].PeriodStart.Equal(out[j].PeriodStart) {
			return out[i].PeriodStart.Before(out[j].PeriodStart)
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// Attribution is whose usage it is.
type Attribution struct {
	WorkspaceID string
	SandboxID   string
	SandboxName string
	Provider    string
	AgentID     string
	AgentName   string
	ThreadID    string
	ThreadKey   string
}

// sum hands each part of u that falls in [q.From, q.To) to add, with the
// start of the period of q's granularity it falls in: the rolled-up hours
// in their window, the metered rows outside it.
func sum(q Query, u Usage, now time.Time, add func(period time.Time, a Attribution, m Measures)) {
	for _, h := range u.Hours {
		if h.Hour.Before(u.RolledFrom) || !h.Hour.Before(u.RolledTo) {
			continue
		}
		add(q.Granularity.start(h.Hour), Attribution{WorkspaceID: h.WorkspaceID, SandboxID: h.SandboxID, SandboxName: h.SandboxName,
			Provider: h.Provider, AgentID: h.AgentID, AgentName: h.AgentName, ThreadID: h.ThreadID, ThreadKey: h.ThreadKey}, measuresOf(h))
	}
	raw := [][2]time.Time{{q.From, q.To}}
	if u.RolledFrom.Before(u.RolledTo) {
		raw = [][2]time.Time{{q.From, u.RolledFrom}, {u.RolledTo, q.To}}
	}
	within := func(t time.Time) bool {
		for _, r := range raw {
			if !t.Before(r[0]) && t.Before(r[1]) {
				return true
			}
		}
		return false
	}
	for _, iv := range u.Intervals {
		a := Attribution{WorkspaceID: iv.WorkspaceID, SandboxID: iv.SandboxID, SandboxName: iv.SandboxName, Provider: iv.Provider,
			AgentID: iv.AgentID, AgentName: iv.AgentName, ThreadID: iv.ThreadID, ThreadKey: iv.ThreadKey}
		if iv.State == auxilia.UsageCommand && within(iv.Start) {
			add(q.Granularity.start(iv.Start), a, Measures{Commands: 1}) // counted where it started
		}
		for _, r := range raw {
			start, end := maxTime(iv.Start, r[0]), iv.End
			if end.IsZero() {
				end = now
			}
			end = minTime(end, r[1])
			for period := q.Granularity.start(start); period.Before(end); period = q.Granularity.next(period) {
				secs := minTime(end, q.Granularity.next(period)).Sub(maxTime(start, period)).Seconds()
				if secs > 0 {
					add(period, a, measured(iv, secs))
				}
			}
		}
	}
	for _, e := range u.Events {
		if !within(e.At) {
			continue
		}
		var m Measures
		switch e.Kind {
		case auxilia.UsageCreated:
			m.Created = 1
		case auxilia.UsageFailed:
			m.Failed = 1
		case auxilia.UsageReplaced:
			m.Replaced = 1
		}
		add(q.Granularity.start(e.At), Attribution{WorkspaceID: e.WorkspaceID, SandboxID: e.SandboxID, SandboxName: e.SandboxName,
			Provider: e.Provider, AgentID: e.AgentID, AgentName: e.AgentName, ThreadID: e.ThreadID, ThreadKey: e.ThreadKey}, m)
	}
}

// hourOf is one hour's measures by a, as the rollup keeps them; measuresOf
// reads them back.
func hourOf(hour time.Time, a Attribution, m Measures) auxilia.UsageHour {
	return auxilia.UsageHour{Hour: hour, WorkspaceID: a.WorkspaceID, SandboxID: a.SandboxID, SandboxName: a.SandboxName,
		Provider: a.Provider, AgentID: a.AgentID, AgentName: a.AgentName, ThreadID: a.ThreadID, ThreadKey: a.ThreadKey,
		RunningSeconds: m.RunningSeconds, PausedSeconds: m.PausedSeconds, Created: m.Created, Failed: m.Failed,
		Replaced: m.Replaced, Commands: m.Commands, CommandSeconds: m.CommandSeconds, TerminalSeconds: m.TerminalSeconds,
		KeptByteSeconds: m.KeptByteSeconds}
}

func measuresOf(h auxilia.UsageHour) Measures {
	return Measures{RunningSeconds: h.RunningSeconds, PausedSeconds: h.PausedSeconds, Created: h.Created, Failed: h.Failed,
		Replaced: h.Replaced, Commands: h.Commands, CommandSeconds: h.CommandSeconds, TerminalSeconds: h.TerminalSeconds,
		KeptByteSeconds: h.KeptByteSeconds}
}

// measured is what secs of the interval iv used.
func measured(iv auxilia.UsageInterval, secs float64) Measures {
	switch iv.State {
	case auxilia.UsagePaused:
		return Measures{PausedSeconds: secs}
	case auxilia.UsageCommand:
		return Measures{CommandSeconds: secs}
	case auxilia.UsageTerminal:
		return Measures{TerminalSeconds: secs}
	case auxilia.UsageKept:
		return Measures{KeptByteSeconds: float64(iv.Bytes) * secs}
	}
	return Measures{RunningSeconds: secs}
}

type group struct{ key, name string }

func groupOf(by GroupBy, a Attribution) group {
	switch by {
	case Sandbox:
		return group{a.SandboxID, a.SandboxName}
	case Agent:
		return group{a.AgentID, a.AgentName}
	case Thread:
		return group{a.ThreadID, a.ThreadKey}
	case Provider:
		return group{a.Provider, a.Provider}
	}
	return group{}
}

// start is the beginning of the period t falls in.
func (g Granularity) start(t time.Time) time.Time {
	t = t.UTC()
	if g == Day {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t.Truncate(time.Hour)
}

// next is the beginning of the period after the one starting at p.
func (g Granularity) next(p time.Time) time.Time {
	if g == Day {
		return p.AddDate(0, 0, 1)
	}
	return p.Add(time.Hour)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
