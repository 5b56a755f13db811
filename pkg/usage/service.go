package usage

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Store reads one workspace's metered usage.
type Store interface {
	Intervals(ctx context.Context, from, to time.Time) ([]auxilia.UsageInterval, error)
	Events(ctx context.Context, from, to time.Time) ([]auxilia.UsageEvent, error)
	// Spans are its commands, terminals and kept files (seen at now).
	Spans(ctx context.Context, from, to, now time.Time) ([]auxilia.UsageInterval, error)
	// Rolled is the first run of rolled-up hours in [from, to) (both whole
	// hours), as [start, end), with their sums; start == end when none is.
	Rolled(ctx context.Context, from, to time.Time) (start, end time.Time, hours []auxilia.UsageHour, err error)
}

// Longest spans a report may cover, by granularity.
const (
	MaxHourSpan = 31 * 24 * time.Hour
	MaxDaySpan  = 366 * 24 * time.Hour
)

// MaxSpan is the longest span a report of granularity g may cover.
func (g Granularity) MaxSpan() time.Duration {
	if g == Hour {
		return MaxHourSpan
	}
	return MaxDaySpan
}

// Service reports the usage of workspaces.
type Service struct {
	store    func(workspaceID string) Store
	rates    Rates
	currency string
	now      func() time.Time
	pending  func(ctx context.Context) error
}

// Options are the operator's rates, their currency, a clock (tests), and
// Pending, which waits for this process's meters not yet written (the
// run service writes commands' meters after their answers).
type Options struct {
	Rates    Rates
	Currency string
	Now      func() time.Time
	Pending  func(ctx context.Context) error
}

// New returns the service on the workspaces' stores.
func New(store func(workspaceID string) Store, o Options) *Service {
	if o.Currency == "" {
		o.Currency = DefaultCurrency
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Pending == nil {
		o.Pending = func(context.Context) error { return nil }
	}
	return &Service{store: store, rates: o.Rates, currency: o.Currency, now: o.Now, pending: o.Pending}
}

// Answer is a report and how to read its costs.
type Answer struct {
	Rows []Row
	// Currency of every EstimatedCost; Estimated says costs were given at all.
	Currency  string
	Estimated bool
}

// Report returns the workspace's usage for q (already checked): the
// rolled-up sums for the first run of whole hours rolled up in q's span,
// the metered rows for the rest.
func (s *Service) Report(ctx context.Context, workspaceID string, q Query) (Answer, error) {
	if err := s.pending(ctx); err != nil {
		return Answer{}, err
	}
	st, now := s.store(workspaceID), s.now().UTC()
	u := Usage{RolledFrom: Hour.start(q.From)}
	if u.RolledFrom.Before(q.From) {
		u.RolledFrom = u.RolledFrom.Add(time.Hour)
	}
	u.RolledTo = u.RolledFrom
	if last := Hour.start(q.To); u.RolledFrom.Before(last) {
		var err error
		if u.RolledFrom, u.RolledTo, u.Hours, err = st.Rolled(ctx, u.RolledFrom, last); err != nil {
			return Answer{}, err
		}
	}
	// The rows are read where the rollup does not reach: before it (less
	// than an hour) and after it; an interval over both is read once.
	reads := [][2]time.Time{{q.From, q.To}}
	if u.RolledFrom.Before(u.RolledTo) {
		reads = [][2]time.Time{{q.From, u.RolledFrom}, {u.RolledTo, q.To}}
	}
	for i, span := range reads {
		if !span[0].Before(span[1]) {
			continue
		}
		intervals, err := st.Intervals(ctx, span[0], span[1])
		if err != nil {
			return Answer{}, err
		}
		spans, err := st.Spans(ctx, span[0], span[1], now)
		if err != nil {
			return Answer{}, err
		}
		events, err := st.Events(ctx, span[0], span[1])
		if err != nil {
			return Answer{}, err
		}
		for _, iv := range append(intervals, spans...) {
			if i == 0 || reads[0][0].Equal(reads[0][1]) || !iv.Start.Before(u.RolledFrom) {
				u.Intervals = append(u.Intervals, iv)
			}
		}
		u.Events = append(u.Events, events...)
	}
	rows := Report(q, u, now, s.rates)
	return Answer{Rows: rows, Currency: s.currency, Estimated: len(s.rates) > 0}, nil
}
