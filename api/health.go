package api

import (
	"context"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

type healthHandler struct{ db Pinger }

// diskWatcher is a database that tells whether its disk is full.
type diskWatcher interface{ DiskFull() bool }

type status struct {
	Status string `json:"status" example:"ok"`
} //@name Status

// live answers while the process runs.
//
//	@Summary	Liveness
//	@Tags		health
//	@Produce	json
//	@Success	200	{object}	status
//	@ID			checkLiveness
//	@Router		/healthz [get]
func (h healthHandler) live(c echo.Context) error {
	return c.JSON(http.StatusOK, status{Status: "ok"})
}

// ready answers 200 while the database answers and its disk has room, else 503.
//
//	@Summary	Readiness
//	@Tags		health
//	@Produce	json
//	@Success	200	{object}	status
//	@Failure	503	{object}	Problem
//	@ID			checkReadiness
//	@Router		/readyz [get]
func (h healthHandler) ready(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := h.db.Ping(ctx); err != nil {
		return auxilia.Errorf(auxilia.CodeUnavailable, "The database does not answer.")
	}
	if dw, ok := h.db.(diskWatcher); ok && dw.DiskFull() {
		return auxilia.Errorf(auxilia.CodeUnavailable, "The database's disk is full: nothing can be saved until space is freed.")
	}
	return c.JSON(http.StatusOK, status{Status: "ok"})
}
