package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/require"
)

// slowBindingDeletes makes every delete from bindings hold its transaction
// open for a second, as a loaded database would: long enough for a
// concurrent writer to come in between the statements of a write.
func slowBindingDeletes(t *testing.T, db *store.DB) {
	t.Helper()
	sqlDB, err := db.SQL()
	require.NoError(t, err)
	_, err = sqlDB.Exec(`CREATE FUNCTION slow_delete() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(1); RETURN OLD; END $$ LANGUAGE plpgsql;
		CREATE TRIGGER slow_delete AFTER DELETE ON bindings FOR EACH ROW EXECUTE FUNCTION slow_delete();`)
	require.NoError(t, err)
}

// awaitSlowDelete waits until a delete from bindings is held in its
// trigger: the writer that made it is inside its transaction.
func awaitSlowDelete(t *testing.T, db *store.DB) {
	t.Helper()
	sqlDB, err := db.SQL()
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		var sleeping int
		err := sqlDB.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'`).Scan(&sleeping)
		return err == nil && sleeping > 0
	}, 10*time.Second, 10*time.Millisecond, "no delete from bindings began")
}

// Detaching a sandbox's agents and unbinding one of them change the same
// rows: both pass without a deadlock, one after the other.
func TestUnbindingWhileASandboxIsDeletedWithItsAgents(t *testing.T) {
	db := storetest.Open(t, store.Postgres)
	f := newFixture(t, db)
	slowBindingDeletes(t, db)
	ctx := context.Background()

	unbound := make(chan error, 1)
	go func() {
		_, err := f.app.Agents.Unbind(ctx, f.ws.ID, f.agent.ID, nil)
		unbound <- err
	}()
	awaitSlowDelete(t, db)
	require.NoError(t, f.app.Sandboxes.Delete(ctx, f.ws.ID, f.sandbox.ID, nil, true))
	require.NoError(t, <-unbound)
}

// A patch without If-Match that comes while the agent is being detached
// waits for it, and applies to the version the detach made.
func TestPatchingAnAgentWhileItIsDetached(t *testing.T) {
	db := storetest.Open(t, store.Postgres)
	f := newFixture(t, db)
	slowBindingDeletes(t, db)
	ctx := context.Background()

	deleted := make(chan error, 1)
	go func() { deleted <- f.app.Sandboxes.Delete(ctx, f.ws.ID, f.sandbox.ID, nil, true) }()
	awaitSlowDelete(t, db)
	_, err := f.app.Agents.Patch(ctx, f.ws.ID, f.agent.ID, []byte(`{"description":"x"}`), nil)
	require.NoError(t, err)
	require.NoError(t, <-deleted)
}
