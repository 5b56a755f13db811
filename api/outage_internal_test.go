package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answer is what the error handler answers for err.
func answer(t *testing.T, err error) *httptest.ResponseRecorder {
	t.Helper()
	e := echo.New()
	e.HTTPErrorHandler = errorHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	e.GET("/x", func(echo.Context) error { return err })
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	return rec
}

// A database that does not answer is a 503 with Retry-After, not a 500.
func TestADatabaseOutageIsA503WithRetryAfter(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	_, err = store.Open(context.Background(), "postgres://postgres@"+addr+"/test?sslmode=disable&connect_timeout=2", "")
	require.Error(t, err)

	rec := answer(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"reason":"service_unavailable"`)
	assert.Contains(t, rec.Body.String(), "database is not available")
	assert.NotContains(t, rec.Body.String(), addr, "the database's address is not shown")
	assert.Equal(t, "5", rec.Header().Get("Retry-After"))
}

// sqliteFull is the embedded driver's SQLITE_FULL.
type sqliteFull struct{}

func (sqliteFull) Error() string { return "database or disk is full (13)" }
func (sqliteFull) Code() int     { return 13 }

// fullDisk is a database that answers with its disk full.
type fullDisk struct{}

func (fullDisk) Ping(context.Context) error { return nil }
func (fullDisk) DiskFull() bool             { return true }

// A write on a full disk is a 507 that names the full disk, and readiness
// says so while it lasts.
func TestAFullDiskIsA507AndNotReady(t *testing.T) {
	rec := answer(t, fmt.Errorf("create workspace: %w", sqliteFull{}))
	assert.Equal(t, http.StatusInsufficientStorage, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"reason":"insufficient_storage"`)
	assert.Contains(t, rec.Body.String(), "disk is full")

	e := echo.New()
	e.HTTPErrorHandler = errorHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))
	e.GET("/readyz", healthHandler{db: fullDisk{}}.ready)
	ready := httptest.NewRecorder()
	e.ServeHTTP(ready, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	assert.Equal(t, http.StatusServiceUnavailable, ready.Code)
	assert.Contains(t, ready.Body.String(), "disk is full")
}
