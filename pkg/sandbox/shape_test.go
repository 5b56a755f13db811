package sandbox_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/local"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeOldConfig writes config into the sandbox's row as an older version
// stored it, past the registry.
func storeOldConfig(t *testing.T, db *store.DB, id, config string) {
	t.Helper()
	sqlDB, err := db.SQL()
	require.NoError(t, err)
	_, err = sqlDB.Exec("UPDATE sandboxes SET config = $1 WHERE id = $2", config, id)
	require.NoError(t, err)
}

func configOf(t *testing.T, sb auxilia.Sandbox) map[string]any {
	t.Helper()
	var c map[string]any
	require.NoError(t, json.Unmarshal(sb.Config, &c))
	return c
}

func TestAConfigStoredByAnOlderVersionMeansWhatItMeant(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys, err := secret.ParseKeys(secret.NewKey())
		require.NoError(t, err)
		a := app.New(db, keys, app.Options{DataDir: t.TempDir()})
		ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		gatewaySecret := "gateway-secret-value"
		jail, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Local", Provider: "local"})
		require.NoError(t, err)
		cloudrun, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Run", Provider: "cloudrun", URL: "https://gw.example", Secret: &gatewaySecret})
		require.NoError(t, err)
		storeOldConfig(t, db, jail.ID, `{"network":true,"memory_mb":512,"disk_mb":2048,"max_processes":64,"default_packages":[],"timeout":1800}`)
		storeOldConfig(t, db, cloudrun.ID, `{"gcs_bucket":"","snapshot_prefix":"s/","allow_egress":true,"default_packages":[],"timeout":1800}`)

		got, err := a.Sandboxes.Get(ctx, ws.ID, jail.ID)
		require.NoError(t, err)
		c := configOf(t, got)
		assert.Equal(t, map[string]any{"default": "allow", "allow": []any{}, "deny": []any{}}, c["network"], "network: true was anywhere")
		assert.Equal(t, map[string]any{"cpu": 0.0, "memory_mb": 512.0, "disk_mb": 2048.0}, c["resources"])
		assert.NotContains(t, c, "memory_mb")
		cfg, err := a.Sandboxes.Config(got)
		require.NoError(t, err)
		assert.Equal(t, provider.AllowNetwork(), cfg.(*local.Config).Network, "the client gets the same")

		page, err := a.Sandboxes.List(ctx, ws.ID, "Run", auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		assert.Equal(t, map[string]any{"default": "allow", "allow": []any{}, "deny": []any{}}, configOf(t, page.Items[0])["network"],
			"allow_egress: true was anywhere")
		assert.NotContains(t, configOf(t, page.Items[0]), "allow_egress")

		patched, err := a.Sandboxes.Patch(ctx, ws.ID, jail.ID, json.RawMessage(`{"config":{"network":{"deny":["198.51.100.7"]}}}`), nil)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"default": "allow", "allow": []any{}, "deny": []any{"198.51.100.7"}}, configOf(t, patched)["network"],
			"a patch merges into what the stored switch meant")
	})
}

func TestAReadConfigIsTheReadersOwnAndItsPoolIsTheStoredOne(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys, err := secret.ParseKeys(secret.NewKey())
		require.NoError(t, err)
		a := app.New(db, keys, app.Options{DataDir: t.TempDir()})
		ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		pooled, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Pooled", Provider: "local",
			Config: json.RawMessage(`{"pool":{"size":3,"max_idle_minutes":5}}`)})
		require.NoError(t, err)
		plain, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Plain", Provider: "local"})
		require.NoError(t, err)

		first, err := a.Sandboxes.Get(ctx, ws.ID, pooled.ID)
		require.NoError(t, err)
		want := string(first.Config)
		for i := range first.Config {
			first.Config[i] = ' ' // a reader that scribbles on its copy
		}
		again, err := a.Sandboxes.Get(ctx, ws.ID, pooled.ID)
		require.NoError(t, err)
		assert.JSONEq(t, want, string(again.Config), "a later read is not changed by an earlier reader")

		pool, err := a.Sandboxes.WarmPool(again)
		require.NoError(t, err)
		assert.Equal(t, provider.Pool{Size: 3, MaxIdleMinutes: 5}, pool)
		plainRead, err := a.Sandboxes.Get(ctx, ws.ID, plain.ID)
		require.NoError(t, err)
		pool, err = a.Sandboxes.WarmPool(plainRead)
		require.NoError(t, err)
		assert.Equal(t, 0, pool.Size, "no pool by default")

		_, err = a.Sandboxes.WarmPool(auxilia.Sandbox{ID: "x", SandboxSpec: auxilia.SandboxSpec{Provider: "nowhere"}})
		assert.Error(t, err, "a provider this server lacks has no config to read")
	})
}
