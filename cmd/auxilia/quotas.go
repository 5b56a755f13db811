package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
)

const quotasUsage = "usage: auxilia quotas set --workspace NAME [--instances N] [--instance-hours N] [--threads-per-agent N]\n" +
	"       auxilia quotas show --workspace NAME"

// quotas sets and shows the limits the operator puts on a workspace; it
// works beside a running server on the same database, which enforces a
// change at its next instance.
func quotas(ctx context.Context, cfg config, args []string, out io.Writer) error {
	if len(args) == 0 || (args[0] != "set" && args[0] != "show") {
		return errors.New(quotasUsage)
	}
	fs := flag.NewFlagSet("quotas "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	workspace := fs.String("workspace", "", "the workspace")
	var update auxilia.QuotaSettings
	if args[0] == "set" {
		fs.Func("instances", "live instances at once, pooled ones included (0: no limit)", limitFlag("instances", &update.Instances))
		fs.Func("instance-hours", "instance-hours per calendar month (0: no limit)", limitFlag("instance-hours", &update.InstanceHours))
		fs.Func("threads-per-agent", "threads with a live instance per agent (0: no limit)", limitFlag("threads-per-agent", &update.ThreadsPerAgent))
	}
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("quotas %s: %w\n%s", args[0], err, quotasUsage)
	}
	if *workspace == "" {
		return fmt.Errorf("quotas %s: --workspace is required\n%s", args[0], quotasUsage)
	}
	if args[0] == "set" && update == (auxilia.QuotaSettings{}) {
		return fmt.Errorf("quotas set: give at least one of --instances, --instance-hours, --threads-per-agent\n%s", quotasUsage)
	}
	db, err := openDB(ctx, cfg, newLogger(cfg.LogLevel))
	if err != nil {
		return err
	}
	defer db.Close()
	q := app.NewQuotas(db)
	var use []auxilia.QuotaUse
	if args[0] == "set" {
		use, err = q.Set(ctx, *workspace, update)
	} else {
		use, err = q.Show(ctx, *workspace)
	}
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		return fmt.Errorf("quotas %s: no workspace is called %q", args[0], *workspace)
	}
	if err != nil {
		return err
	}
	return printQuotas(out, use)
}

// limitFlag parses a quota's flag: a whole number, 0 for no limit.
func limitFlag(name string, into **int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("--%s must be a whole number (0 for no limit), not %q", name, v)
		}
		*into = &n
		return nil
	}
}

// printQuotas writes each quota, where its limit comes from, and its use.
func printQuotas(out io.Writer, use []auxilia.QuotaUse) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "QUOTA\tLIMIT\tFROM\tUSED")
	for _, u := range use {
		limit, from, used := strconv.Itoa(u.Limit), "workspace", "not measured"
		if u.Limit == 0 {
			limit = "none"
		}
		if u.Default {
			from = "server default"
		}
		if u.Used != nil {
			used = strconv.Itoa(*u.Used)
			if u.Limit > 0 {
				used += fmt.Sprintf(" (%d%%)", u.Percent())
			}
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", u.Name, limit, from, used)
	}
	return w.Flush()
}
