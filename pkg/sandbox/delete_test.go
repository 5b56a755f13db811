package sandbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingDelete is the sandbox store with its final step broken: a failure
// injected after the detach and the release have run in the transaction.
type failingDelete struct{ sandbox.Store }

func (failingDelete) Delete(context.Context, string, int) error {
	return errors.New("injected failure")
}

type fixture struct {
	db      *store.DB
	app     *app.App
	ws      auxilia.Workspace
	sandbox auxilia.Sandbox
	agent   auxilia.Agent
}

func newFixture(t *testing.T, db *store.DB) fixture {
	ctx := context.Background()
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(t, err)
	a := app.New(db, keys, app.Options{DataDir: t.TempDir()})
	ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
	require.NoError(t, err)
	sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Local", Provider: "local"})
	require.NoError(t, err)
	ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
	require.NoError(t, err)
	_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
	require.NoError(t, err)
	return fixture{db: db, app: a, ws: ws, sandbox: sb, agent: ag}
}

// liveThread gives the agent a thread with a live instance of the sandbox.
func (f fixture) liveThread(t *testing.T, key string) (threadID, instanceID string) {
	sqlDB, err := f.db.SQL()
	require.NoError(t, err)
	threadID, instanceID = auxilia.NewID(), auxilia.NewID()
	now := store.Now()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO threads (id, workspace_id, agent_id, thread_key, instance_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
			[]any{threadID, f.ws.ID, f.agent.ID, key, instanceID, now}},
		{"INSERT INTO instances (id, workspace_id, sandbox_id, thread_id, provider_ref, status, created_at, updated_at) VALUES ($1, $2, $3, $4, 'loc-1', 'live', $5, $5)",
			[]any{instanceID, f.ws.ID, f.sandbox.ID, threadID, now}},
	} {
		_, err := sqlDB.Exec(q.sql, q.args...)
		require.NoError(t, err)
	}
	return threadID, instanceID
}

func (f fixture) state(t *testing.T, threadID, instanceID string) (threadInstance *string, status string) {
	sqlDB, err := f.db.SQL()
	require.NoError(t, err)
	require.NoError(t, sqlDB.QueryRow("SELECT instance_id FROM threads WHERE id = $1", threadID).Scan(&threadInstance))
	require.NoError(t, sqlDB.QueryRow("SELECT status FROM instances WHERE id = $1", instanceID).Scan(&status))
	return threadInstance, status
}

func TestDeleteWithDetachIsOneTransaction(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		thread, inst := f.liveThread(t, "t1")

		broken := sandbox.New(sandbox.Deps{Store: func(ws string) sandbox.Store { return failingDelete{db.In(ws).Sandboxes()} }, Bindings: func(ws string) sandbox.Bindings { return db.In(ws).Bindings() },
			Instances: func(ws string) sandbox.Instances { return db.In(ws).Instances() }, Audit: db.System("audit").Audit(), Tx: db, Providers: f.app.Providers, Keys: f.app.Keys})
		err := broken.Delete(ctx, f.ws.ID, f.sandbox.ID, nil, true)
		require.ErrorContains(t, err, "injected failure")

		got, err := f.app.Agents.Get(ctx, f.ws.ID, f.agent.ID)
		require.NoError(t, err)
		require.NotNil(t, got.Binding, "the detach was rolled back")
		ti, status := f.state(t, thread, inst)
		require.NotNil(t, ti)
		assert.Equal(t, inst, *ti, "the thread still has its instance")
		assert.Equal(t, "live", status)
		_, err = f.app.Sandboxes.Get(ctx, f.ws.ID, f.sandbox.ID)
		assert.NoError(t, err, "the sandbox is still there")

		require.NoError(t, f.app.Sandboxes.Delete(ctx, f.ws.ID, f.sandbox.ID, nil, true))
		got, err = f.app.Agents.Get(ctx, f.ws.ID, f.agent.ID)
		require.NoError(t, err)
		assert.Nil(t, got.Binding)
		ti, status = f.state(t, thread, inst)
		assert.Nil(t, ti, "the thread no longer points at the dead instance")
		assert.Equal(t, "released", status, "the instance waits for the reaper")
		_, sealed, err := db.In(f.ws.ID).Sandboxes().GetSealed(ctx, f.sandbox.ID)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "the deleted sandbox is gone from view")
		assert.Empty(t, sealed.Ciphertext)
	})
}

func TestDeleteAgentReleasesItsInstances(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		thread, inst := f.liveThread(t, "t1")
		require.NoError(t, f.app.Agents.Delete(ctx, f.ws.ID, f.agent.ID, nil))
		sqlDB, err := db.SQL()
		require.NoError(t, err)
		var threads int
		require.NoError(t, sqlDB.QueryRow("SELECT COUNT(*) FROM threads WHERE id = $1", thread).Scan(&threads))
		assert.Zero(t, threads, "the agent's threads went with it")
		var status string
		require.NoError(t, sqlDB.QueryRow("SELECT status FROM instances WHERE id = $1", inst).Scan(&status))
		assert.Equal(t, "released", status)
	})
}

func TestRebindReleasesTheOldSandboxesInstances(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		thread, inst := f.liveThread(t, "t1")
		same, err := f.app.Agents.Bind(ctx, f.ws.ID, f.agent.ID, f.sandbox.ID, map[string]string{"grep": "disabled"}, nil, nil)
		require.NoError(t, err)
		assert.Equal(t, auxilia.Disabled, same.Tools["grep"])
		_, status := f.state(t, thread, inst)
		assert.Equal(t, "live", status, "changing policies keeps the instance")

		other, err := f.app.Sandboxes.Create(ctx, f.ws.ID, sandbox.Input{Name: "Other", Provider: "local"})
		require.NoError(t, err)
		_, err = f.app.Agents.Bind(ctx, f.ws.ID, f.agent.ID, other.ID, nil, nil, nil)
		require.NoError(t, err)
		ti, status := f.state(t, thread, inst)
		assert.Nil(t, ti)
		assert.Equal(t, "released", status, "an instance of the old sandbox is never reused")
	})
}
