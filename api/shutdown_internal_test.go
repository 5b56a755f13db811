package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// cutStarts is a run service whose starts are cut by the server shutting
// down: the run package words the cancelled provider call as its fault.
type cutStarts struct{ RunService }

func (cutStarts) Start(ctx context.Context, _, _, _ string) (auxilia.Run, error) {
	<-ctx.Done()
	return auxilia.Run{}, auxilia.Errorf(auxilia.CodeSandboxUnavailable, "Sandbox 'Analysis' is not available: internal error")
}

func TestAPlainRunStartCutByShutdownSaysTheServerIsShuttingDown(t *testing.T) {
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	e.POST("/agents/:id/threads/:thread_id/runs", runsHandler{svc: cutStarts{}}.start)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodPost, "/agents/"+auxilia.NewID()+"/threads/t1/runs", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)

	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"reason":"service_unavailable"`)
	assert.Contains(t, rec.Body.String(), "shutting down")
	assert.NotContains(t, rec.Body.String(), "internal error")
	assert.NotEmpty(t, rec.Header().Get("Retry-After"))
}
