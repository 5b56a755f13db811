package store_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMigrateIsIdempotentAndVersioned(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		applied, err := db.Migrate(ctx)
		require.NoError(t, err)
		assert.Empty(t, applied, "a migrated database has nothing left to apply")
		v, err := db.SchemaVersion(ctx)
		require.NoError(t, err)
		assert.Greater(t, v, 0)
	})
}

func TestMigrateFromEmptyConcurrently(t *testing.T) {
	ctx := context.Background()
	t.Run("postgres", func(t *testing.T) {
		url := storetest.NewEmptyPostgresDatabase(t)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				db, err := store.Open(ctx, url, "")
				if err != nil {
					errs[i] = err
					return
				}
				defer db.Close()
				_, errs[i] = db.Migrate(ctx)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
	})
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		db, err := store.Open(ctx, "", dir)
		require.NoError(t, err)
		defer db.Close()
		applied, err := db.Migrate(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, applied[0])
	})
}

func TestTokens(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		again, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		assert.Equal(t, ws.ID, again.ID)

		tok, err := db.Tokens().Create(ctx, auxilia.Token{WorkspaceID: ws.ID, Name: "ci", Role: auxilia.RoleMember}, "h1")
		require.NoError(t, err)
		got, gotWS, err := db.Tokens().ByHash(ctx, "h1")
		require.NoError(t, err)
		assert.Equal(t, tok.ID, got.ID)
		assert.Equal(t, "acme", gotWS.Name)
		assert.True(t, got.CreatedAt.Equal(tok.CreatedAt))

		_, err = db.Tokens().Create(ctx, auxilia.Token{WorkspaceID: ws.ID, Name: "dup", Role: auxilia.RoleMember}, "h1")
		require.Error(t, err, "hashes are unique")

		at := store.Now()
		require.NoError(t, db.Tokens().Touch(ctx, tok.ID, at, at.Add(-time.Minute)))
		got, err = db.Tokens().Get(ctx, ws.ID, tok.ID)
		require.NoError(t, err)
		require.NotNil(t, got.LastUsedAt)
		assert.True(t, got.LastUsedAt.Equal(at))

		other, err := db.Workspaces().Ensure(ctx, "other")
		require.NoError(t, err)
		_, err = db.Tokens().Get(ctx, other.ID, tok.ID)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "another workspace's token is not found")
		assert.True(t, auxilia.IsCode(db.Tokens().Revoke(ctx, other.ID, tok.ID), auxilia.CodeNotFound))

		require.NoError(t, db.Tokens().Revoke(ctx, ws.ID, tok.ID))
		revoked, _, err := db.Tokens().ByHash(ctx, "h1")
		require.NoError(t, err)
		assert.NotNil(t, revoked.RevokedAt, "a revoked token is found, marked revoked")
		exists, err := db.Tokens().HashExists(ctx, "h1")
		require.NoError(t, err)
		assert.True(t, exists)
	})
}

func TestTokenPages(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		var ids []string
		for i := 0; i < 5; i++ {
			tok, err := db.Tokens().Create(ctx, auxilia.Token{WorkspaceID: ws.ID, Name: "t", Role: auxilia.RoleAdmin}, string(rune('a'+i)))
			require.NoError(t, err)
			ids = append(ids, tok.ID)
		}
		var seen []string
		req := auxilia.PageRequest{Size: 2}
		for pages := 0; ; pages++ {
			require.Less(t, pages, 4)
			page, err := db.Tokens().List(ctx, ws.ID, req)
			require.NoError(t, err)
			for _, tok := range page.Items {
				seen = append(seen, tok.ID)
			}
			if page.Next == "" {
				break
			}
			req.After = page.Next
		}
		assert.Equal(t, ids, seen)
	})
}

func TestIdempotencyClaims(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		tok, err := db.Tokens().Create(ctx, auxilia.Token{WorkspaceID: ws.ID, Name: "t", Role: auxilia.RoleAdmin}, "h")
		require.NoError(t, err)
		long, now := time.Now().Add(-24*time.Hour), time.Now()
		idem := db.Idempotency()

		prev, err := idem.Claim(ctx, tok.ID, "k", "body1", long, long)
		require.NoError(t, err)
		assert.Nil(t, prev, "first claim is new")

		prev, err = idem.Claim(ctx, tok.ID, "k", "body1", long, long)
		require.NoError(t, err)
		require.NotNil(t, prev)
		assert.False(t, prev.Done, "still in flight")

		require.NoError(t, idem.Complete(ctx, tok.ID, "k", 201, map[string]string{"Location": "/x"}, []byte(`{"a":1}`)))
		prev, err = idem.Claim(ctx, tok.ID, "k", "body2", long, long)
		require.NoError(t, err)
		require.NotNil(t, prev)
		assert.True(t, prev.Done)
		assert.Equal(t, 201, prev.Status)
		assert.Equal(t, "/x", prev.Headers["Location"])
		assert.Equal(t, `{"a":1}`, string(prev.Body))
		assert.Equal(t, "body1", prev.RequestHash)

		prev, err = idem.Claim(ctx, tok.ID, "k", "body2", now.Add(time.Second), long)
		require.NoError(t, err)
		assert.Nil(t, prev, "an expired answer is forgotten")

		require.NoError(t, idem.Release(ctx, tok.ID, "k"))
		prev, err = idem.Claim(ctx, tok.ID, "k", "body3", long, long)
		require.NoError(t, err)
		assert.Nil(t, prev, "a released claim is new again")

		n, err := idem.Purge(ctx, now.Add(time.Minute))
		require.NoError(t, err)
		assert.EqualValues(t, 1, n)
	})
}

func TestSQLiteInAFolderWithURIMetacharacters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a#b?c%d")
	db, err := store.Open(ctx, "", dir)
	require.NoError(t, err)
	_, err = db.Migrate(ctx)
	require.NoError(t, err)
	_, err = db.Workspaces().Ensure(ctx, "x")
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = os.Stat(filepath.Join(dir, store.SQLiteFile))
	assert.NoError(t, err, "the database file is inside the folder, whatever its name")
}
