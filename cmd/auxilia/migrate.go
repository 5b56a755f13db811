package main

import (
	"context"
	"fmt"
)

func migrate(ctx context.Context, cfg config) error {
	db, err := openDB(ctx, cfg, newLogger(cfg.LogLevel))
	if err != nil {
		return err
	}
	defer db.Close()
	v, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("database schema at version %d\n", v)
	return nil
}
