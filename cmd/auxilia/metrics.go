package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// listenMetrics serves /metrics, and nothing else, on its own address
// (AUXILIA_METRICS_LISTEN), so that only who reaches that address reads
// them; the caller closes the server.
func listenMetrics(addr string, metrics http.Handler, log *slog.Logger) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (AUXILIA_METRICS_LISTEN): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("serving metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("the metrics listener stopped", "error", err)
		}
	}()
	return srv, nil
}
