package api

import (
	"log/slog"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// quietRoutes are polled by orchestrators; their lines are debug-level.
var quietRoutes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// logRequests writes one JSON line per request (request id, route, status,
// latency, actor) and counts it. It never logs a body, a header or a query:
// none of them may carry a secret into the log.
func logRequests(log *slog.Logger, m auxilia.Metrics) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			if err := next(c); err != nil {
				c.Error(err)
			}
			took := time.Since(start)
			req, res := c.Request(), c.Response()
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			m.RequestServed(route, req.Method, res.Status, took)
			level := slog.LevelInfo
			if quietRoutes[route] {
				level = slog.LevelDebug
			}
			attrs := []slog.Attr{
				slog.String("request_id", requestID(c)),
				slog.String("method", req.Method),
				slog.String("route", route),
				slog.String("path", req.URL.Path),
				slog.Int("status", res.Status),
				slog.Float64("latency_ms", float64(took.Microseconds())/1000),
				slog.Int64("bytes", res.Size),
			}
			if a, ok := auxilia.ActorFrom(req.Context()); ok {
				attrs = append(attrs, slog.String("actor", a.Principal()), slog.String("workspace", a.Workspace.ID))
			}
			log.LogAttrs(req.Context(), level, "request", attrs...)
			return nil
		}
	}
}
