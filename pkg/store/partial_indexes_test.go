package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A start finds its thread's active run by runs_active, and a call its
// pending approval by approvals_pending, on whatever plan Postgres keeps
// for the statement, one made for any arguments too: else a thread with a
// long history would have every run (or approval) it ever had read each
// time.
func TestRowsArePickedByTheirPartialIndexOnAnyPlan(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	sqlDB, err := db.SQL()
	require.NoError(t, err)
	conn, err := sqlDB.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	// The plan made for any arguments, and an index wherever one serves:
	// the tables are as good as empty.
	for _, set := range []string{"SET plan_cache_mode = force_generic_plan", "SET enable_seqscan = off"} {
		_, err := conn.ExecContext(ctx, set)
		require.NoError(t, err)
	}
	for index, statements := range store.PartialIndexStatements() {
		for query, args := range statements {
			_, err := conn.ExecContext(ctx, "PREPARE picking AS "+query)
			require.NoError(t, err, query)
			var plan string
			nulls := strings.TrimSuffix(strings.Repeat("NULL, ", args), ", ")
			require.NoError(t, conn.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) EXECUTE picking("+nulls+")").Scan(&plan), query)
			assert.Contains(t, plan, `"Index Name": "`+index+`"`, "%s\n%s", query, plan)
			_, err = conn.ExecContext(ctx, "DEALLOCATE picking")
			require.NoError(t, err)
		}
	}
}
