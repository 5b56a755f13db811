package auxilia

import (
	"fmt"
	"time"
)

// QuotaName names one of the limits the operator sets on a workspace.
type QuotaName string

// The quotas: live instances at once (pooled ones included), instance-hours
// per calendar month (UTC), and threads with a live instance per agent.
const (
	QuotaInstances       QuotaName = "instances"
	QuotaInstanceHours   QuotaName = "instance_hours"
	QuotaThreadsPerAgent QuotaName = "threads_per_agent"
)

// QuotaNames lists every quota, in the order they are shown.
func QuotaNames() []QuotaName {
	return []QuotaName{QuotaInstances, QuotaInstanceHours, QuotaThreadsPerAgent}
}

// Quotas are a workspace's limits; 0 is no limit.
type Quotas struct {
	Instances       int
	InstanceHours   int
	ThreadsPerAgent int
	// CostBudget is the estimated cost per calendar month that alerts
	// (0: none); it refuses nothing.
	CostBudget float64
}

// Of returns the limit the quota name sets.
func (q Quotas) Of(name QuotaName) int {
	switch name {
	case QuotaInstances:
		return q.Instances
	case QuotaInstanceHours:
		return q.InstanceHours
	case QuotaThreadsPerAgent:
		return q.ThreadsPerAgent
	}
	return 0
}

// QuotaSettings are the limits the operator set on one workspace: a nil
// field is left to the server's default (its AUXILIA_QUOTA_* setting).
type QuotaSettings struct {
	Instances       *int
	InstanceHours   *int
	ThreadsPerAgent *int
	CostBudget      *float64
}

// Over resolves the settings over the defaults.
func (s QuotaSettings) Over(defaults Quotas) Quotas {
	pick := func(v *int, def int) int {
		if v != nil {
			return *v
		}
		return def
	}
	budget := defaults.CostBudget
	if s.CostBudget != nil {
		budget = *s.CostBudget
	}
	return Quotas{Instances: pick(s.Instances, defaults.Instances), InstanceHours: pick(s.InstanceHours, defaults.InstanceHours),
		ThreadsPerAgent: pick(s.ThreadsPerAgent, defaults.ThreadsPerAgent), CostBudget: budget}
}

// Of returns the workspace's own setting of the quota, nil when it has none.
func (s QuotaSettings) Of(name QuotaName) *int {
	switch name {
	case QuotaInstances:
		return s.Instances
	case QuotaInstanceHours:
		return s.InstanceHours
	case QuotaThreadsPerAgent:
		return s.ThreadsPerAgent
	}
	return nil
}

// QuotaUse is one quota of a workspace and how much of it is used.
type QuotaUse struct {
	Name QuotaName
	// Limit is the quota in force (0: no limit); Default tells whether it is
	// the server's default rather than the workspace's own setting.
	Limit   int
	Default bool
	// Used is the current use; nil while it is not measured. For
	// threads_per_agent it is the busiest agent's.
	Used *int
}

// Percent is how much of the quota is used, in whole percent (0 without a
// limit or a measure).
func (u QuotaUse) Percent() int {
	if u.Limit <= 0 || u.Used == nil {
		return 0
	}
	return *u.Used * 100 / u.Limit
}

// QuotaActor is the actor name of the audit entries that announce a quota's
// alert level: no token made them.
const QuotaActor = "auxilia quotas"

// QuotaAlertLevels are the shares of a quota whose crossing is announced:
// an audit entry once per crossing, and a banner in the console.
var QuotaAlertLevels = []int{80, 100}

// AlertLevel is the highest alert level used reaches of limit (0 for none).
func AlertLevel(used, limit int) int {
	level := 0
	for _, l := range QuotaAlertLevels {
		if limit > 0 && used*100 >= l*limit {
			level = l
		}
	}
	return level
}

// QuotaRetryConcurrent is the Retry-After of a refusal by a quota of things
// at once (instances, threads per agent): waiting helps as soon as another
// thread's instance is released, which idle threads' instances are.
const QuotaRetryConcurrent = time.Minute

// QuotaExceeded is the problem a start answers when it would pass the
// quota: it names the quota, its limit and the current use.
func QuotaExceeded(name QuotaName, limit, used int, retryAfter time.Duration) *Error {
	what := map[QuotaName]string{
		QuotaInstances:       "live instances at once",
		QuotaInstanceHours:   "instance-hours this month",
		QuotaThreadsPerAgent: "threads with a live instance for this agent",
	}[name]
	e := Errorf(CodeQuotaExceeded, "The workspace's %s quota is used up: %d of %d %s.", name, used, limit, what)
	if retryAfter > 0 {
		e.Message += fmt.Sprintf(" Try again in %s.", retryAfter)
	}
	e.RetryAfter = retryAfter
	return e.With("quota", string(name)).With("limit", limit).With("used", used)
}
