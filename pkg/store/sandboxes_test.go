package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refuseNamed is a check that refuses one name, standing in for the real validation.
func refuseNamed(bad string) auxilia.SandboxCheck {
	return func(s auxilia.SandboxSpec) error {
		if s.Name == bad {
			return errors.New("invalid sandbox")
		}
		return nil
	}
}

func newSandbox(ws, name string) auxilia.Sandbox {
	return auxilia.Sandbox{ID: auxilia.NewID(), WorkspaceID: ws,
		SandboxSpec: auxilia.SandboxSpec{Name: name, Provider: "local", Config: json.RawMessage(`{}`)}}
}

func TestSandboxSavesRunTheCheck(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)

		_, err = db.Sandboxes().Create(ctx, newSandbox(ws.ID, "x"), auxilia.SealedSecret{})
		require.ErrorContains(t, err, "no sandbox check configured", "without a check nothing is saved")

		db.CheckSandboxesWith(refuseNamed("bad"))
		_, err = db.Sandboxes().Create(ctx, newSandbox(ws.ID, "bad"), auxilia.SealedSecret{})
		require.ErrorContains(t, err, "invalid sandbox")
		sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "good"), auxilia.SealedSecret{})
		require.NoError(t, err)

		sb.Name = "bad"
		_, err = db.Sandboxes().Update(ctx, sb, nil)
		require.ErrorContains(t, err, "invalid sandbox", "updates run the check too")
		got, err := db.Sandboxes().Get(ctx, ws.ID, sb.ID)
		require.NoError(t, err)
		assert.Equal(t, "good", got.Name)
		assert.Equal(t, 1, got.Version)
	})
}

func TestSandboxVersions(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		db.CheckSandboxesWith(refuseNamed(""))
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "a"), auxilia.SealedSecret{KeyID: "k", Ciphertext: "c1"})
		require.NoError(t, err)

		first, second := sb, sb
		first.Description = "first"
		updated, err := db.Sandboxes().Update(ctx, first, nil)
		require.NoError(t, err)
		assert.Equal(t, 2, updated.Version)
		second.Description = "second"
		_, err = db.Sandboxes().Update(ctx, second, nil)
		assert.True(t, auxilia.IsCode(err, auxilia.CodePrecondition), "a write from a stale read fails: %v", err)

		assert.True(t, auxilia.IsCode(db.Sandboxes().Delete(ctx, ws.ID, sb.ID, 1), auxilia.CodePrecondition))
		require.NoError(t, db.Sandboxes().Delete(ctx, ws.ID, sb.ID, updated.Version))

		n, err := db.Sandboxes().ResealSecrets(ctx, func(_ auxilia.Sandbox, s auxilia.SealedSecret) (auxilia.SealedSecret, error) {
			return auxilia.SealedSecret{KeyID: "k2", Ciphertext: s.Ciphertext + "!"}, nil
		})
		require.NoError(t, err)
		assert.Equal(t, 1, n, "deleted sandboxes' secrets are re-sealed too: the reaper still needs them")
	})
}

// The reads that bypass GORM outside a transaction still read inside one
// on the transaction's connection: they see its uncommitted rows.
func TestSandboxReadsJoinTheTransaction(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		db.CheckSandboxesWith(refuseNamed(""))
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		rollBack := errors.New("roll back")
		var id string
		err = db.InTx(ctx, func(ctx context.Context) error {
			sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "uncommitted"), auxilia.SealedSecret{})
			require.NoError(t, err)
			id = sb.ID
			got, err := db.Sandboxes().Get(ctx, ws.ID, sb.ID)
			require.NoError(t, err)
			assert.Equal(t, "uncommitted", got.Name)
			page, err := db.Sandboxes().List(ctx, ws.ID, "uncommitted", auxilia.PageRequest{Size: 10})
			require.NoError(t, err)
			assert.Len(t, page.Items, 1)
			return rollBack
		})
		require.ErrorIs(t, err, rollBack)
		_, err = db.Sandboxes().Get(ctx, ws.ID, id)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "rolled back: %v", err)
	})
}

// A list's pages follow one another by id, filtered by name when asked,
// and a deleted sandbox or another workspace's is in none of them.
func TestSandboxListPages(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		db.CheckSandboxesWith(refuseNamed(""))
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		other, err := db.Workspaces().Ensure(ctx, "other")
		require.NoError(t, err)
		var want []string
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, name), auxilia.SealedSecret{})
			require.NoError(t, err)
			want = append(want, sb.ID)
		}
		_, err = db.Sandboxes().Create(ctx, newSandbox(other.ID, "a"), auxilia.SealedSecret{})
		require.NoError(t, err)
		gone, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "gone"), auxilia.SealedSecret{})
		require.NoError(t, err)
		require.NoError(t, db.Sandboxes().Delete(ctx, ws.ID, gone.ID, gone.Version))

		var got []string
		req := auxilia.PageRequest{Size: 2}
		for pages := 1; ; pages++ {
			page, err := db.Sandboxes().List(ctx, ws.ID, "", req)
			require.NoError(t, err)
			for _, sb := range page.Items {
				got = append(got, sb.ID)
			}
			if page.Next == "" {
				assert.Equal(t, 3, pages)
				break
			}
			req.After = page.Next
		}
		assert.ElementsMatch(t, want, got)
		assert.IsIncreasing(t, got, "in id order")

		named, err := db.Sandboxes().List(ctx, ws.ID, "c", auxilia.PageRequest{Size: 2})
		require.NoError(t, err)
		require.Len(t, named.Items, 1)
		assert.Equal(t, "c", named.Items[0].Name)
		assert.Empty(t, named.Next)
	})
}
