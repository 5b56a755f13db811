package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// tokens creates an API token from the command line; it works beside a
// running server on the same database, and the token works at once.
func tokens(ctx context.Context, cfg config, args []string) error {
	if len(args) == 0 || args[0] != "create" {
		return errors.New("usage: auxilia tokens create --workspace NAME --role admin|member [--name NAME]")
	}
	fs := flag.NewFlagSet("tokens create", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	workspace := fs.String("workspace", auxilia.DefaultWorkspace, "workspace to create the token in (created when missing)")
	role := fs.String("role", string(auxilia.RoleMember), "admin or member")
	name := fs.String("name", "cli", "a name to recognise the token by")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("tokens create: %w", err)
	}
	db, err := openDB(ctx, cfg, newLogger(cfg.LogLevel))
	if err != nil {
		return err
	}
	defer db.Close()
	issued, err := app.NewTokens(db).Issue(ctx, *workspace, *name, auxilia.Role(*role))
	if err != nil {
		var ae *auxilia.Error
		if errors.As(err, &ae) && len(ae.Fields) > 0 {
			return fmt.Errorf("tokens create: --%s %s", ae.Fields[0].Field, ae.Fields[0].Message)
		}
		return err
	}
	fmt.Println(issued.Value)
	return nil
}
