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

// Row is the usage of one period by one group.
type Row struct {
	PeriodStart time.Time
	PeriodEnd   time.Time
	// Key identifies the group (a sandbox, agent or thread id, or a
	// provider's name); Name is what people call it. Both are empty in a
	// total, and for usage that belongs to no agent or thread (a pool's
	// unclaimed instances).
	Key, Name      string
	RunningSeconds float64
	PausedSeconds  float64
	Created        int
	Failed         int
	Replaced       int
	// EstimatedCost is the rates times the usage, nil unless every
	// provider in the row has a rate.
	EstimatedCost *float64
}

// Report sums the intervals and events into rows of q's periods and
// groups, oldest period first, then by key. Open intervals count until now.
// Only periods with some usage have rows.
func Report(q Query, intervals []auxilia.UsageInterval, events []auxilia.UsageEvent, now time.Time, rates Rates) []Row {
	type key struct {
		period time.Time
		group  string
	}
	type acc struct {
		row     Row
		cost    float64
		unrated bool
	}
	rows := map[key]*acc{}
	get := func(period time.Time, g group) *acc {
		k := key{period, g.key}
		a := rows[k]
		if a == nil {
			end := q.Granularity.next(period)
			a = &acc{row: Row{PeriodStart: maxTime(period, q.From), PeriodEnd: minTime(end, q.To), Key: g.key, Name: g.name}}
			rows[k] = a
		}
		return a
	}
	for _, iv := range intervals {
		start, end := maxTime(iv.Start, q.From), iv.End
		if end.IsZero() {
			end = now
		}
		end = minTime(end, q.To)
		g := groupOf(q.GroupBy, iv.SandboxID, iv.SandboxName, iv.AgentID, iv.AgentName, iv.ThreadID, iv.ThreadKey, iv.Provider)
		rate, rated := rates[iv.Provider]
		for period := q.Granularity.start(start); period.Before(end); period = q.Granularity.next(period) {
			secs := minTime(end, q.Granularity.next(period)).Sub(maxTime(start, period)).Seconds()
			if secs <= 0 {
				continue
			}
			a := get(period, g)
			if iv.State == auxilia.UsagePaused {
				a.row.PausedSeconds += secs
				a.cost += secs / 3600 * rate.PausedHour
			} else {
				a.row.RunningSeconds += secs
				a.cost += secs / 3600 * rate.RunningHour
			}
			a.unrated = a.unrated || !rated
		}
	}
	for _, e := range events {
		if e.At.Before(q.From) || !e.At.Before(q.To) {
			continue
		}
		a := get(q.Granularity.start(e.At), groupOf(q.GroupBy, e.SandboxID, e.SandboxName, e.AgentID, e.AgentName, e.ThreadID, e.ThreadKey, e.Provider))
		switch e.Kind {
		case auxilia.UsageCreated:
			a.row.Created++
		case auxilia.UsageFailed:
			a.row.Failed++
		case auxilia.UsageReplaced:
			a.row.Replaced++
		}
	}
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

type group struct{ key, name string }

func groupOf(by GroupBy, sandboxID, sandboxName, agentID, agentName, threadID, threadKey, provider string) group {
	switch by {
	case Sandbox:
		return group{sandboxID, sandboxName}
	case Agent:
		return group{agentID, agentName}
	case Thread:
		return group{threadID, threadKey}
	case Provider:
		return group{provider, provider}
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
