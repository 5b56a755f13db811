// Package storetest gives each test a database of its own, on the real
// Postgres and on the embedded SQLite, migrated to the newest schema.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/jackc/pgx/v5"
)

// DefaultPostgresURL is the Postgres that this project's machines run; set
// AUXILIA_TEST_DATABASE_URL to use another.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// PostgresURL is the server the tests create their databases on.
func PostgresURL() string {
	if u := os.Getenv("AUXILIA_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

// EachDB runs fn once per engine as a subtest, each time on a fresh database.
func EachDB(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, d := range []store.Dialect{store.Postgres, store.SQLite} {
		t.Run(string(d), func(t *testing.T) { fn(t, Open(t, d)) })
	}
}

// Open returns a fresh, migrated database of the given engine, removed when the test ends.
func Open(t testing.TB, d store.Dialect) *store.DB {
	t.Helper()
	ctx := context.Background()
	var (
		db  *store.DB
		err error
	)
	if d == store.Postgres {
		db, err = store.Open(ctx, NewPostgresDatabase(t), "")
	} else {
		db, err = store.Open(ctx, "", t.TempDir())
		if err == nil {
			_, err = db.Migrate(ctx)
		}
	}
	if err != nil {
		t.Fatalf("open %s test database: %v", d, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// NewPostgresDatabase creates a migrated Postgres database for this test
// alone, cloned from a template, dropped when the test ends, and returns its URL.
func NewPostgresDatabase(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	base := PostgresURL()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("reach the test Postgres at %s (start it, or set AUXILIA_TEST_DATABASE_URL): %v", base, err)
	}
	defer admin.Close(ctx)

	template, err := ensureTemplate(ctx, admin, base)
	if err != nil {
		t.Fatalf("prepare template database: %v", err)
	}
	name := "auxilia_test_" + randomHex(8)
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template)); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() { dropDatabase(t, base, name) })
	return withDatabase(base, name)
}

// ensureTemplate makes (once per schema) a migrated database to clone from.
// Its name carries a hash of the migrations, so a schema change makes a new one.
func ensureTemplate(ctx context.Context, admin *pgx.Conn, base string) (string, error) {
	name := "auxilia_template_" + store.MigrationsDigest()[:12]
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(hashtext('auxilia_test_template'))"); err != nil {
		return "", err
	}
	defer admin.Exec(ctx, "SELECT pg_advisory_unlock(hashtext('auxilia_test_template'))")

	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	if _, err := admin.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", building)); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s", building)); err != nil {
		return "", err
	}
	db, err := store.Open(ctx, withDatabase(base, building), "")
	if err != nil {
		return "", err
	}
	_, err = db.Migrate(ctx)
	db.Close()
	if err != nil {
		return "", err
	}
	_, err = admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, name))
	return name, err
}

func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// NewEmptyPostgresDatabase creates an unmigrated Postgres database for this
// test alone, dropped when the test ends, and returns its URL.
func NewEmptyPostgresDatabase(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	base := PostgresURL()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("reach the test Postgres at %s: %v", base, err)
	}
	defer admin.Close(ctx)
	name := "auxilia_test_" + randomHex(8)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() { dropDatabase(t, base, name) })
	return withDatabase(base, name)
}

func dropDatabase(t testing.TB, base, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Errorf("drop test database %s: %v", name, err)
		return
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
		t.Errorf("drop test database %s: %v", name, err)
	}
}
