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

	sandboxes "github.com/auxilia/sandboxes"
	"github.com/auxilia/sandboxes/api"
	"github.com/auxilia/sandboxes/frontend"
	"github.com/auxilia/sandboxes/pkg/store"
)

func serve(ctx context.Context, cfg config) error {
	log := newLogger(cfg.LogLevel)
	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.DB.Close()
	db := a.DB

	first, err := a.Tokens.Bootstrap(ctx, cfg.BootstrapToken)
	if err != nil {
		return fmt.Errorf("bootstrap tokens: %w", err)
	}

	handler := api.New(api.Config{
		Log:         log,
		DB:          db,
		Tokens:      a.Tokens,
		Sandboxes:   a.Sandboxes,
		Agents:      a.Agents,
		Runs:        a.Runs,
		Audit:       db.Audit(),
		Idempotency: db.Idempotency(),
		OpenAPI:     sandboxes.OpenAPI,
		SPA:         frontend.Dist(),
		JSONLimit:   cfg.JSONLimit,
		UploadLimit: cfg.UploadLimit,
	})
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s (AUXILIA_LISTEN): %w", cfg.Listen, err)
	}
	url := "http://" + ln.Addr().String()
	log.Info("listening", "url", url, "database", string(db.Dialect()))
	if first != nil && cfg.BootstrapToken == "" {
		printBanner(os.Stdout, url, first.Value)
	}

	go a.Runs.RunReaper(ctx, cfg.ReaperInterval, db, db, log)

	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}

// openDB connects and migrates: the server always runs on the newest schema.
func openDB(ctx context.Context, cfg config, log *slog.Logger) (*store.DB, error) {
	db, err := store.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
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
