package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/auxilia/sandboxes/api"
	"github.com/auxilia/sandboxes/frontend"
	"github.com/auxilia/sandboxes/pkg/alerts"
	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/jobs"
	"github.com/auxilia/sandboxes/pkg/metrics"
	"github.com/auxilia/sandboxes/pkg/store"
	metering "github.com/auxilia/sandboxes/pkg/usage"
)

// usageRollupEvery is how often a replica looks for closed hours of usage
// to roll up.
const usageRollupEvery = 5 * time.Minute

func serve(ctx context.Context, cfg config) error {
	log := newLogger(cfg.LogLevel)
	planGC(os.Getenv, bubblewrap.MemoryLimit).apply(log)
	counters := metrics.New()
	a, err := newApp(ctx, cfg, log, counters)
	if err != nil {
		return err
	}
	defer a.DB.Close()
	db := a.DB
	if sqlDB, err := db.SQL(); err == nil {
		counters.WatchDB(sqlDB)
	}
	counters.WatchConnectionWaits(db.ConnectionWaits)
	counters.WatchLineHolds(db.LineHolds)
	counters.WatchUsage(db.System("usage metrics").UsageSnapshot)

	first, err := a.Tokens.Bootstrap(ctx, cfg.BootstrapToken)
	if err != nil {
		return fmt.Errorf("bootstrap tokens: %w", err)
	}

	// /metrics is served on the API's listener unless it has its own.
	metricsHandler := counters.Handler()
	if cfg.MetricsListen != "" {
		metricsSrv, err := listenMetrics(cfg.MetricsListen, metricsHandler, log)
		if err != nil {
			return err
		}
		defer metricsSrv.Close()
		metricsHandler = nil
	}
	terminals := new(api.Terminals)
	var sessions api.SessionService
	if cfg.OIDC != nil {
		sessions = app.NewSessions(db, a.Keys, *cfg.OIDC)
	}
	handler := api.New(a.API(api.Config{
		Log:             log,
		Sessions:        sessions,
		RunStartTimeout: longestRunStart(cfg.CreateTimeout),
		TerminalGrace:   cfg.TerminalGrace,
		Terminals:       terminals,
		AllowedOrigins:  cfg.AllowedOrigins,
		SPA:             frontend.Dist(),
		JSONLimit:       cfg.JSONLimit,
		UploadLimit:     cfg.UploadLimit,
		RateLimit:       cfg.RateLimit,
		Metrics:         counters,
		MetricsHandler:  metricsHandler,
	}))
	tcp, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s (AUXILIA_LISTEN): %w", cfg.Listen, err)
	}
	ln := limitConnections(tcp, cfg.HTTP.MaxConnections)
	url := "http://" + ln.Addr().String()
	log.Info("listening", "url", url, "database", string(db.Dialect()))
	if first != nil && cfg.BootstrapToken == "" {
		printBanner(os.Stdout, url, first.Value, isTerminal(os.Stdout))
	}

	background := jobs.Start(ctx, db, counters, log, backgroundJobs(a, cfg, log)...)

	// Requests run under their own base context: shutdown ends them only
	// once the grace period is over, and only then do open streams end.
	requests, endRequests := context.WithCancel(context.Background())
	defer endRequests()
	// A request must arrive, its body included, within the body timeout;
	// once its body is read, the server lifts the read deadline (it reads
	// on only to see the client leave), so a long handler runs on.
	srv := &http.Server{
		Handler:           withWriteDeadlines(handler, cfg.HTTP.WriteTimeout),
		ReadHeaderTimeout: cfg.HTTP.HeaderTimeout,
		ReadTimeout:       cfg.HTTP.BodyTimeout,
		WriteTimeout:      cfg.HTTP.WriteTimeout, // for answers the server writes itself, as to malformed requests
		IdleTimeout:       cfg.HTTP.IdleTimeout,
		ConnState:         ln.ConnState,
		BaseContext:       func(net.Listener) context.Context { return requests },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		background.Stop(0)
		return err
	case <-ctx.Done():
	}
	// The jobs' passes under way saw ctx end too: they get the requests'
	// grace period, and then the database closes under them.
	graceEnds := time.Now().Add(cfg.ShutdownTimeout)
	err = shutdown(srv, terminals, endRequests, cfg.ShutdownTimeout, log)
	background.Stop(time.Until(graceEnds))
	// The commands answered are metered before the database closes.
	flushCtx, cancel := context.WithDeadline(context.Background(), graceEnds.Add(5*time.Second))
	defer cancel()
	if ferr := a.Runs.FlushMeters(flushCtx); ferr != nil {
		log.Error("metering the last commands failed", "error", ferr)
	}
	return err
}

// backgroundJobs are the server's jobs, each led by one replica at a time.
func backgroundJobs(a *app.App, cfg config, log *slog.Logger) []jobs.Job {
	db := a.DB
	out := []jobs.Job{
		a.Runs.ReaperJob(cfg.ReaperInterval, db.System("purge"), log),
		a.Runs.IdleJob(cfg.ReaperInterval, log),
		a.Runs.PoolJob(log),
		a.Sandboxes.HealthJob(cfg.HealthInterval, db.System("health").Sandboxes(), log),
		alerts.Watcher{Store: db.System("quota alerts").Alerts(), Budgets: a.Quotas, Pauser: a.Runs}.Job(cfg.ReaperInterval, log),
		metering.RollupJob(db.System("usage").Usage(), usageRollupEvery, log),
	}
	if cfg.AlertWebhook != "" {
		w := &alerts.Webhook{URL: cfg.AlertWebhook, Secret: cfg.AlertSecret, Outbox: db.System("alert webhook").Alerts()}
		out = append(out, w.Job(alertDeliveryEvery, log))
	}
	return out
}

// alertDeliveryEvery is how often the alerts due are posted to the webhook.
const alertDeliveryEvery = 10 * time.Second

// shutdown stops accepting, lets in-flight requests finish within timeout,
// then ends the rest (open event streams send a final event) and returns.
// Open terminals end at once, each connection told why: Shutdown neither
// waits for nor closes their hijacked connections.
func shutdown(srv *http.Server, terminals *api.Terminals, endRequests context.CancelFunc, timeout time.Duration, log *slog.Logger) error {
	log.Info("shutting down", "grace", timeout.String())
	graceCtx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	terminalsEnded := make(chan struct{})
	go func() {
		defer close(terminalsEnded)
		terminals.Stop(graceCtx)
	}()
	err := srv.Shutdown(graceCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		log.Warn("grace period over: ending the requests still running")
		endRequests()
		lastCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err = srv.Shutdown(lastCtx); err != nil {
			err = srv.Close()
		}
	}
	<-terminalsEnded
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shut down: %w", err)
	}
	log.Info("stopped")
	return nil
}

// openDB connects and migrates: the server always runs on the newest schema.
func openDB(ctx context.Context, cfg config, log *slog.Logger) (*store.DB, error) {
	db, err := store.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	db.LimitConnections(cfg.DBMaxConnections)
	db.LimitStatementsAtOnce(cfg.DBAtOnce)
	db.SetQuotaDefaults(cfg.Quotas)
	db.SetAlertWebhook(cfg.AlertWebhook != "")
	applied, err := db.Migrate(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	if len(applied) > 0 {
		log.Info("migrated database", "versions", applied)
	}
	return db, nil
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// longestRunStart bounds how long a run start may take, each step within the
// create timeout: waiting for another run's creation, reconnecting the
// instance it made, and creating a new one when that one is gone.
func longestRunStart(createTimeout time.Duration) time.Duration {
	return 3*createTimeout + time.Minute
}
