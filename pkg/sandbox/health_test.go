package sandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBackgroundHealthChecks(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		_, err := f.app.Sandboxes.Create(ctx, f.ws.ID, sandbox.Input{Name: "Nowhere", Provider: "opensandbox", URL: "127.0.0.1:1"})
		require.NoError(t, err)

		n, err := f.app.Sandboxes.CheckHealth(ctx, time.Minute, db.System("health").Sandboxes())
		require.NoError(t, err)
		assert.Equal(t, 2, n, "every sandbox never checked is probed")
		page, err := f.app.Sandboxes.List(ctx, f.ws.ID, "", auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		for _, sb := range page.Items {
			require.NotNil(t, sb.Health.CheckedAt, sb.Name)
			if sb.Name == "Nowhere" {
				assert.Equal(t, auxilia.HealthFailed, sb.Health.Status)
			}
		}

		n, err = f.app.Sandboxes.CheckHealth(ctx, time.Minute, db.System("health").Sandboxes())
		require.NoError(t, err)
		assert.Zero(t, n, "recently checked sandboxes are left alone")
	})
}
