package api

import (
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// shutdownRetryAfter is when a request cut short by the server shutting
// down may be tried again: by then another replica, or this one restarted,
// answers it.
const shutdownRetryAfter = 5 * time.Second

// shuttingDown is the problem a request cut short by the server shutting
// down answers: 503, saying so, with when to try again.
func shuttingDown(detail string) error {
	e := auxilia.Errorf(auxilia.CodeUnavailable, "%s", detail)
	e.RetryAfter = shutdownRetryAfter
	return e
}

// cutShort is err, or, when the request's context ended before it (the
// server is shutting down, or the client left), the problem that says so:
// a cancelled call is not worded as the provider's or the database's fault.
func cutShort(c echo.Context, err error, detail string) error {
	if err == nil || c.Request().Context().Err() == nil {
		return err
	}
	return shuttingDown(detail)
}
