package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/auxilia/sandboxes/api"
	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/auxilia/sandboxes/pkg/token"
	"github.com/labstack/echo/v4"
)

// BenchmarkReadSandboxes is the two read routes the bench tool loads, on
// Postgres, through the whole handler (middleware, the JSON access log,
// authentication, the store) without the network: what the server's own
// work costs, and where it goes (-cpuprofile, -memprofile).
func BenchmarkReadSandboxes(b *testing.B) {
	ctx := context.Background()
	a, e, issued := benchServer(b, storetest.Open(b, store.Postgres))
	var id string
	for i := range 50 {
		secretValue := fmt.Sprintf("osk-team-%02d-0123456789", i)
		sb, err := a.Sandboxes.Create(ctx, issued.Token.WorkspaceID, sandbox.Input{Name: fmt.Sprintf("Sandbox %02d", i),
			Provider: "opensandbox", URL: fmt.Sprintf("sandbox-%02d.internal:8083", i), Secret: &secretValue,
			Config: json.RawMessage(`{"default_packages":["pandas==2.2.*","numpy>=2"],"volume_mounts":["/srv/datasets:/data:ro"]}`)})
		if err != nil {
			b.Fatal(err)
		}
		id = sb.ID
	}
	for _, route := range []struct{ name, path string }{
		{"get", "/api/v1/sandboxes/" + id},
		{"list", "/api/v1/sandboxes"},
	} {
		b.Run(route.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, route.path, nil)
				req.Header.Set("Authorization", "Bearer "+issued.Value)
				rec := httptest.NewRecorder()
				e.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s: %d %s", route.path, rec.Code, rec.Body)
				}
			}
		})
	}
}

// benchServer is the server's handler on db, as the benchmarks drive it
// without the network, its access log discarded, with an admin's token.
func benchServer(b *testing.B, db *store.DB) (*app.App, *echo.Echo, token.Issued) {
	keys, err := secret.ParseKeys(secret.NewKey())
	if err != nil {
		b.Fatal(err)
	}
	a := app.New(db, keys, app.Options{DataDir: b.TempDir()})
	e := api.New(a.API(api.Config{Log: slog.New(slog.NewJSONHandler(io.Discard, nil))}))
	issued, err := a.Tokens.Issue(context.Background(), "default", "bench", auxilia.RoleAdmin)
	if err != nil {
		b.Fatal(err)
	}
	return a, e, issued
}
