package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/local"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	metering "github.com/auxilia/sandboxes/pkg/usage"
)

// newApp opens and migrates the database, loads the keys and wires the services.
func newApp(ctx context.Context, cfg config, log *slog.Logger, m auxilia.Metrics) (*app.App, error) {
	isolation, err := localIsolation(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	db, err := openDB(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	keys, err := loadKeys(cfg, db.Dialect(), log)
	if err != nil {
		db.Close()
		return nil, err
	}
	// Half the statements the store runs at once serve the starts choosing
	// their instance; the other half those past their choice.
	runs := run.Options{IdleTimeout: cfg.RunIdleTimeout, CreateLease: cfg.CreateTimeout, ChoosingAtOnce: max(1, cfg.DBAtOnce/2)}
	o := app.Options{Metrics: m, DataDir: cfg.DataDir, ProbeTimeout: cfg.ProbeTimeout, Run: runs,
		Policy:   provider.Policy{AllowedHostPaths: cfg.AllowedHostPaths, BlockPrivateURLs: cfg.BlockPrivateURLs},
		Operator: cfg.Providers, LocalCeilings: cfg.LocalCeilings, LocalJailIDs: cfg.LocalJailIDs, LocalIsolation: isolation,
		LocalPackageIndex: cfg.LocalIndex, Cost: metering.Options{Rates: cfg.CostRates, Currency: cfg.CostCurrency}}
	return app.New(db, keys, o), nil
}

// localIsolation tries runsc, unless the local provider is off or the
// operator never offers gVisor, and says in the log what it found.
func localIsolation(ctx context.Context, cfg config, log *slog.Logger) (local.Isolation, error) {
	if cfg.Providers.SwitchedOff(local.Kind{}) {
		return local.Isolation{}, nil
	}
	i, err := local.ReadIsolation(ctx, cfg.Providers)
	if err != nil {
		return i, fmt.Errorf("the local provider: %w", err)
	}
	if i.GVisor.Available() {
		log.Info("gVisor runs here: local sandboxes may ask for it", "runsc", i.GVisor.Runsc, "platform", i.GVisor.Platform)
	} else if i.Only == "" && i.GVisor.Platform != "" {
		log.Info("local sandboxes run under bubblewrap only", "gvisor", i.GVisor.Reason())
	}
	return i, nil
}

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
