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
}

// Options are the operator's rates, their currency and a clock (tests).
type Options struct {
	Rates    Rates
	Currency string
	Now      func() time.Time
}

// New returns the service on the workspaces' stores.
func New(store func(workspaceID string) Store, o Options) *Service {
	if o.Currency == "" {
		o.Currency = DefaultCurrency
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{store: store, rates: o.Rates, currency: o.Currency, now: o.Now}
}

// Answer is a report and how to read its costs.
type Answer struct {
	Rows []Row
	// Currency of every EstimatedCost; Estimated says costs were given at all.
	Currency  string
	Estimated bool
}

// Report returns the workspace's usage for q (already checked).
func (s *Service) Report(ctx context.Context, workspaceID string, q Query) (Answer, error) {
	st := s.store(workspaceID)
	intervals, err := st.Intervals(ctx, q.From, q.To)
	if err != nil {
		return Answer{}, err
	}
	events, err := st.Events(ctx, q.From, q.To)
	if err != nil {
		return Answer{}, err
	}
	rows := Report(q, intervals, events, s.now().UTC(), s.rates)
	return Answer{Rows: rows, Currency: s.currency, Estimated: len(s.rates) > 0}, nil
}
