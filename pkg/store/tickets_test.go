package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A terminal ticket is taken once, whoever asks at the same moment (two
// replicas), and not at all once it has expired.
func TestTerminalTicketsAreTakenOnce(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "default")
		require.NoError(t, err)
		tok, err := db.Tokens().Create(ctx, auxilia.Token{WorkspaceID: ws.ID, Name: "browser", Role: auxilia.RoleMember}, "token-hash")
		require.NoError(t, err)
		runID := auxilia.NewID()
		ticket := auxilia.TerminalTicket{TokenID: tok.ID, RunID: runID, Approved: true, ExpiresAt: time.Now().Add(30 * time.Second)}
		require.NoError(t, db.Tokens().AddTicket(ctx, ticket, "ticket-hash"))

		var taken atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := db.Tokens().ClaimTicket(ctx, "ticket-hash", time.Now())
				if err == nil {
					taken.Add(1)
					assert.Equal(t, tok.ID, got.TokenID)
					assert.Equal(t, runID, got.RunID)
					assert.True(t, got.Approved)
					return
				}
				assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "%v", err)
			}()
		}
		wg.Wait()
		assert.EqualValues(t, 1, taken.Load(), "exactly one claim takes the ticket")

		ticket.ExpiresAt = time.Now().Add(-time.Second)
		require.NoError(t, db.Tokens().AddTicket(ctx, ticket, "expired-hash"))
		_, err = db.Tokens().ClaimTicket(ctx, "expired-hash", time.Now())
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "an expired ticket is refused: %v", err)

		got, gotWS, err := db.Tokens().ByID(ctx, tok.ID)
		require.NoError(t, err)
		assert.Equal(t, "browser", got.Name)
		assert.Equal(t, ws.ID, gotWS.ID)
	})
}
