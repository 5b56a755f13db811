package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/secret"
)

// keys manages the secret keys: `generate` prints a new one; `rotate`
// re-encrypts every stored secret under the first key of AUXILIA_SECRET_KEYS,
// after which the other keys may be dropped.
func keys(ctx context.Context, cfg config, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: auxilia keys generate | auxilia keys rotate")
	}
	switch args[0] {
	case "generate":
		fmt.Println(secret.NewKey())
		return nil
	case "rotate":
		a, err := newApp(ctx, cfg, newLogger(cfg.LogLevel), auxilia.NoMetrics{})
		if err != nil {
			return err
		}
		defer a.DB.Close()
		n, err := a.Sandboxes.RotateKeys(ctx)
		if err != nil {
			return fmt.Errorf("rotate: %d secrets re-encrypted before: %w", n, err)
		}
		states, err := a.Runs.RotateKeys(ctx, a.DB.System("keys").Runs())
		if err != nil {
			return fmt.Errorf("rotate: %d instance states re-encrypted before: %w", states, err)
		}
		fmt.Printf("re-encrypted %d secrets and %d instance states under key %s\n", n, states, a.Keys.PrimaryID())
		return nil
	default:
		return fmt.Errorf("unknown keys command %q (generate, rotate)", args[0])
	}
}
