// Command cloudrun-gateway is Auxilia's Cloud Run sandbox gateway: it runs
// each sandbox under bubblewrap and keeps snapshots of their workspaces in
// Cloud Storage. It is configured from the environment; see
// docs/cloudrun-gateway.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/auxilia/sandboxes/pkg/gateway"
)

// shutdownGrace is what Cloud Run leaves between SIGTERM and SIGKILL, less a margin.
const shutdownGrace = 8 * time.Second

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(log); err != nil {
		log.Error("gateway stopped", "error", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger) error {
	cfg, err := gateway.ConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	if cfg.Secret == "" {
		log.Warn("GATEWAY_SECRET is not set: every call but /health is refused with 503")
	}
	launcher := gateway.NewBubblewrapLauncher(cfg)
	if err := launcher.Check(context.Background()); err != nil {
		log.Warn("the sandbox launcher is not usable: /health reports cli_mounted=false", "error", err)
	}
	// Without credentials (GATEWAY_GCS_AUTH=none aside) the client, and so
	// the gateway, does not start: snapshots would all fail.
	client, err := cfg.StorageClient(context.Background())
	if err != nil {
		return fmt.Errorf("cloud storage: %w", err)
	}
	defer client.Close()
	store := &gateway.GCS{Client: client}
	gw, err := gateway.New(cfg, gateway.Options{Launcher: launcher, Store: store, Logger: log})
	if err != nil {
		return err
	}
	defer gw.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Requests live in baseCtx, which ends only once the grace period is over, so running commands may finish.
	baseCtx, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	srv := &http.Server{
		Addr:              net.JoinHostPort(cfg.Host, cfg.Port),
		Handler:           gw.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
	}
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		return err
	}
	log.Info("gateway listening", "addr", ln.Addr().String(), "launcher", launcher.Name(),
		"allow_egress", cfg.AllowEgress, "data_dir", cfg.DataDir, "gcs", cfg.GCSEndpoint)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(shutdownCtx)
	cancelRequests()
	if errors.Is(err, context.DeadlineExceeded) {
		_ = srv.Close()
		err = nil
	}
	if serveErr := <-served; !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	return err
}
