// Package alerts watches the workspaces' quotas and cost budgets for the
// alert levels (80 and 100 %) their use reaches, and delivers each alert to
// the operator's webhook.
package alerts

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/jobs"
)

// Store is what the watcher reads and records, across workspaces.
type Store interface {
	Workspaces(ctx context.Context) ([]auxilia.Workspace, error)
	Use(ctx context.Context, workspaceID string) ([]auxilia.QuotaUse, error)
	Record(ctx context.Context, workspaceID string, reached []auxilia.AlertReached) error
}

// Budgets estimate a workspace's cost this month against its budget.
type Budgets interface {
	Budget(ctx context.Context, workspaceID string) (auxilia.Budget, error)
}

// Pauser pauses a workspace's idle instances once its instance-hours are
// used up, and returns how many it paused.
type Pauser interface {
	PauseIdleOverQuota(ctx context.Context, workspaceID string) (int, error)
}

// Watcher measures what admissions cannot see: instance-hours and cost
// grow with time, and a use that falls (instances released, a new month)
// rearms its alert. It pauses idle instances where instance-hours are used
// up.
type Watcher struct {
	Store   Store
	Budgets Budgets
	Pauser  Pauser
}

// WatchReport says what a pass did.
type WatchReport struct {
	Workspaces int // workspaces measured
	Paused     int // instances paused over an exhausted quota
}

// Watch is one pass over every workspace.
func (w Watcher) Watch(ctx context.Context) (WatchReport, error) {
	var rep WatchReport
	all, err := w.Store.Workspaces(ctx)
	if err != nil {
		return rep, err
	}
	var errs []error
	for _, ws := range all {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		paused, err := w.watch(ctx, ws.ID)
		rep.Paused += paused
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rep.Workspaces++
	}
	return rep, errors.Join(errs...)
}

// watch records the levels one workspace's uses reach, and pauses its
// idle instances if its instance-hours are used up.
func (w Watcher) watch(ctx context.Context, workspaceID string) (int, error) {
	use, err := w.Store.Use(ctx, workspaceID)
	if err != nil {
		return 0, err
	}
	var reached []auxilia.AlertReached
	hoursUsedUp := false
	for _, u := range use {
		if u.Used == nil {
			continue
		}
		reached = append(reached, auxilia.AlertReached{Subject: auxilia.AlertSubject(u.Name), Level: auxilia.AlertLevel(*u.Used, u.Limit),
			Used: float64(*u.Used), Limit: float64(u.Limit)})
		hoursUsedUp = hoursUsedUp || (u.Name == auxilia.QuotaInstanceHours && u.Limit > 0 && *u.Used >= u.Limit)
	}
	if w.Budgets != nil {
		b, err := w.Budgets.Budget(ctx, workspaceID)
		if err != nil {
			return 0, err
		}
		r := auxilia.AlertReached{Subject: auxilia.AlertCostBudget, Level: b.Level(), Limit: b.Limit, Currency: b.Currency}
		if b.Cost != nil {
			r.Used = *b.Cost
		}
		reached = append(reached, r)
	}
	if err := w.Store.Record(ctx, workspaceID, reached); err != nil {
		return 0, err
	}
	if !hoursUsedUp || w.Pauser == nil {
		return 0, nil
	}
	return w.Pauser.PauseIdleOverQuota(ctx, workspaceID)
}

// Job is the watcher as a background job, led by one replica at a time.
func (w Watcher) Job(every time.Duration, log *slog.Logger) jobs.Job {
	return jobs.Job{Name: "quota-alerts", Every: every, Jitter: every / 10, Run: func(ctx context.Context) error {
		rep, err := w.Watch(ctx)
		if rep.Paused > 0 {
			log.Info("instance-hours used up: idle instances paused", "paused", rep.Paused)
		}
		return err
	}}
}
