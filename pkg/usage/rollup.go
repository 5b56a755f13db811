package usage

import (
	"context"
	"log/slog"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/jobs"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// RollupStore is every workspace's metered usage, for the rollup
// (store.System.Usage).
type RollupStore interface {
	// NextHour is the hour to sum next; false when nothing was metered.
	NextHour(ctx context.Context) (time.Time, bool, error)
	// Rows are the metered rows over [from, to), terminals seen at now.
	Rows(ctx context.Context, from, to, now time.Time) ([]auxilia.UsageInterval, []auxilia.UsageEvent, error)
	// Save records an hour's sums once; false when it was already.
	Save(ctx context.Context, hour time.Time, sums []auxilia.UsageHour) (bool, error)
}

// Settle is how long after an hour's end it is rolled up: a command is
// metered once it answers, so an hour is summed only once no command that
// began in it can still be running (the longest timeout a sandbox may set,
// with the margin its caller allows for the provider's answer, and a
// minute for its record to be written). Until then reports read the
// hour's rows themselves.
const Settle = provider.DefaultMaxTimeout*time.Second + 2*time.Minute

// Hours sums the rows metered over [hour, hour+1h) per workspace,
// sandbox, provider, agent and thread, open ones counted until now.
func Hours(hour time.Time, intervals []auxilia.UsageInterval, events []auxilia.UsageEvent, now time.Time) []auxilia.UsageHour {
	type key struct{ workspace, sandbox, provider, agent, thread string }
	type part struct {
		a Attribution
		m Measures
	}
	sums := map[key]*part{}
	var order []key
	q := Query{From: hour, To: hour.Add(time.Hour), Granularity: Hour}
	sum(q, Usage{Intervals: intervals, Events: events}, now, func(_ time.Time, a Attribution, m Measures) {
		k := key{a.WorkspaceID, a.SandboxID, a.Provider, a.AgentID, a.ThreadID}
		p := sums[k]
		if p == nil {
			p = &part{a: a}
			sums[k] = p
			order = append(order, k)
		}
		p.m.add(m)
	})
	out := make([]auxilia.UsageHour, len(order))
	for i, k := range order {
		out[i] = hourOf(hour, sums[k].a, sums[k].m)
	}
	return out
}

// RollUp sums, oldest first, up to max hours that ended Settle before now
// and are not rolled up yet. Two replicas rolling up the same hour save it
// once: it returns how many hours this call saved.
func RollUp(ctx context.Context, st RollupStore, now time.Time, max int) (int, error) {
	saved := 0
	for range max {
		hour, ok, err := st.NextHour(ctx)
		if err != nil || !ok || hour.Add(time.Hour+Settle).After(now) {
			return saved, err
		}
		intervals, events, err := st.Rows(ctx, hour, hour.Add(time.Hour), now)
		if err != nil {
			return saved, err
		}
		done, err := st.Save(ctx, hour, Hours(hour, intervals, events, now))
		if err != nil {
			return saved, err
		}
		if done {
			saved++
		}
	}
	return saved, nil
}

// rollupBatch bounds the hours one pass sums, so that a first pass over a
// long history holds the job's lease for a while only.
const rollupBatch = 24 * 7

// RollupJob rolls usage up every `every`, in one replica at a time.
func RollupJob(st RollupStore, every time.Duration, log *slog.Logger) jobs.Job {
	return jobs.Job{Name: "usage-rollup", Every: every, Jitter: every / 10, Run: func(ctx context.Context) error {
		n, err := RollUp(ctx, st, time.Now().UTC(), rollupBatch)
		if n > 0 {
			log.Info("usage rollup pass", "hours", n)
		}
		return err
	}}
}
