package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
)

// app is the server's parts, wired together.
type app struct {
	db        *store.DB
	keys      *secret.Keyring
	sandboxes *sandbox.Registry
}

func newApp(ctx context.Context, cfg config, log *slog.Logger) (*app, error) {
	db, err := openDB(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	keys, err := loadKeys(cfg, db.Dialect(), log)
	if err != nil {
		db.Close()
		return nil, err
	}
	providers := provider.NewRegistry(
		provider.Policy{AllowedHostPaths: cfg.AllowedHostPaths, BlockPrivateURLs: cfg.BlockPrivateURLs},
		builtin.Kinds(builtin.Options{DataDir: cfg.DataDir})...)
	if !cfg.LocalProvider {
		providers.Disable("local", "AUXILIA_LOCAL_PROVIDER is off")
	}
	registry := sandbox.New(db.Sandboxes(), db, providers, keys, sandbox.Options{ProbeTimeout: cfg.ProbeTimeout})
	db.CheckSandboxesWith(registry.Check)
	return &app{db: db, keys: keys, sandboxes: registry}, nil
}

func (a *app) Close() error { return a.db.Close() }

// loadKeys reads AUXILIA_SECRET_KEYS. Without it the embedded default keeps
// a generated key in the data folder; Postgres refuses to start, because
// every replica must share the same keys.
func loadKeys(cfg config, dialect store.Dialect, log *slog.Logger) (*secret.Keyring, error) {
	if cfg.SecretKeys != "" {
		keys, err := secret.ParseKeys(cfg.SecretKeys)
		if err != nil {
			return nil, fmt.Errorf("AUXILIA_SECRET_KEYS: %w", err)
		}
		return keys, nil
	}
	if dialect == store.Postgres {
		return nil, errors.New("AUXILIA_SECRET_KEYS is required with Postgres (every replica must share the keys); make one with `auxilia keys generate`")
	}
	keys, created, err := secret.LoadOrCreateKeyFile(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("secret key file: %w", err)
	}
	if created {
		log.Warn("generated a secret key in the data folder; back it up with the database, or set AUXILIA_SECRET_KEYS",
			"file", secret.KeyFile, "key_id", keys.PrimaryID())
	}
	return keys, nil
}
