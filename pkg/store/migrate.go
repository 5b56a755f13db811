package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"text/template"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one versioned step of the schema. Its SQL is written once for
// both engines; {{.ID}} and {{.Time}} stand for the column types that differ.
type migration struct {
	version int
	name    string
	sql     string
}

// columnTypes fill the migration templates for each engine. SQLite's driver
// reads times back only from columns declared exactly TIMESTAMP.
var columnTypes = map[Dialect]struct{ ID, Time string }{
	Postgres: {ID: "UUID", Time: "TIMESTAMPTZ"},
	SQLite:   {ID: "TEXT", Time: "TIMESTAMP"},
}

func loadMigrations(dialect Dialect) ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		base := strings.TrimSuffix(e.Name(), ".sql")
		num, name, ok := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", e.Name())
		}
		raw, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		tmpl, err := template.New(e.Name()).Option("missingkey=error").Parse(string(raw))
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		var sql bytes.Buffer
		if err := tmpl.Execute(&sql, columnTypes[dialect]); err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: version, name: name, sql: sql.String()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	// Each number once. A gap is allowed: steps written side by side are
	// numbered ahead of their merge, and each applied version is recorded
	// on its own, so a step merged later is applied when it arrives.
	for i := range out {
		if out[i].version < 1 || (i > 0 && out[i].version == out[i-1].version) {
			return nil, fmt.Errorf("migration %d: numbers must be positive and used once", out[i].version)
		}
	}
	return out, nil
}

// Migrate brings the schema to the newest version. Each step runs in its own
// transaction under a lock, so replicas starting together migrate once.
// It returns the versions it applied.
func (db *DB) Migrate(ctx context.Context) ([]int, error) {
	steps, err := loadMigrations(db.dialect)
	if err != nil {
		return nil, err
	}
	create := `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at ` + columnTypes[db.dialect].Time + ` NOT NULL)`
	err = db.InTx(ctx, func(ctx context.Context) error {
		if err := db.Lock(ctx, "schema_migrations"); err != nil {
			return err
		}
		return db.conn(ctx).Exec(create).Error
	})
	if err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", err)
	}
	var applied []int
	for _, step := range steps {
		done := false
		err := db.InTx(ctx, func(ctx context.Context) error {
			if err := db.Lock(ctx, "schema_migrations"); err != nil {
				return err
			}
			var n int64
			if err := db.conn(ctx).Table("schema_migrations").Where("version = ?", step.version).Count(&n).Error; err != nil {
				return err
			}
			if n > 0 {
				done = true
				return nil
			}
			for _, stmt := range splitStatements(step.sql) {
				if err := db.conn(ctx).Exec(stmt).Error; err != nil {
					return fmt.Errorf("%w\n%s", err, stmt)
				}
			}
			return db.conn(ctx).Exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				step.version, step.name, Now()).Error
		})
		if err != nil {
			return applied, fmt.Errorf("migration %d (%s): %w", step.version, step.name, err)
		}
		if !done {
			applied = append(applied, step.version)
		}
	}
	return applied, nil
}

// SchemaVersion returns the newest applied migration, 0 for an empty database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v *int
	err := db.conn(ctx).Raw("SELECT MAX(version) FROM schema_migrations").Scan(&v).Error
	if err != nil || v == nil {
		return 0, err
	}
	return *v, nil
}

// splitStatements cuts a migration at semicolons that end a line.
func splitStatements(sql string) []string {
	var out []string
	for _, part := range strings.Split(sql, ";\n") {
		var lines []string
		for _, line := range strings.Split(part, "\n") {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "--") {
				lines = append(lines, line)
			}
		}
		if stmt := strings.TrimSuffix(strings.TrimSpace(strings.Join(lines, "\n")), ";"); stmt != "" {
			out = append(out, stmt)
		}
	}
	return out
}

// MigrationsDigest fingerprints the migrations, so that a test template
// database built from one schema is never used for another.
func MigrationsDigest() string {
	h := sha256.New()
	entries, _ := fs.ReadDir(migrationFiles, "migrations")
	for _, e := range entries {
		raw, _ := migrationFiles.ReadFile("migrations/" + e.Name())
		h.Write([]byte(e.Name()))
		h.Write(raw)
	}
	return hex.EncodeToString(h.Sum(nil))
}
