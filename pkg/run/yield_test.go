package run_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// datedTx records when each transaction's request says it arrived.
type datedTx struct {
	run.Transactor
	mu    sync.Mutex
	dates []time.Time
}

func (d *datedTx) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	at, _ := auxilia.ArrivedAt(ctx)
	d.mu.Lock()
	d.dates = append(d.dates, at)
	d.mu.Unlock()
	return d.Transactor.InTx(ctx, fn)
}

func (d *datedTx) took() []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.dates
	d.dates = nil
	return out
}

// A start with no instance to reconnect is about to wait on its provider
// for seconds: its statements take their turn for a database connection
// as if it had arrived MakingYield later, behind those of the warm and
// pooled starts that arrive meanwhile. A warm start's keep its arrival.
func TestAStartMakingItsInstanceYieldsItsTurn(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		tx := &datedTx{Transactor: w.app.Runs.Tx}
		w.app.Runs.Tx = tx
		arrived := time.Now()
		ctx := auxilia.Arrived(context.Background(), arrived)

		made, err := w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "new")
		require.NoError(t, err)
		require.True(t, made.Created)
		dates := tx.took()
		require.NotEmpty(t, dates, "the start chose its instance in a transaction")
		for _, at := range dates {
			assert.Equal(t, arrived.Add(run.MakingYield), at)
		}

		warm, err := w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "new")
		require.NoError(t, err)
		require.False(t, warm.Created)
		for _, at := range tx.took() {
			assert.Equal(t, arrived, at, "a warm start keeps its turn")
		}
	})
}
