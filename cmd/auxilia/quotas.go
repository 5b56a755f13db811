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
	metering "github.com/auxilia/sandboxes/pkg/usage"
)

const quotasUsage = "usage: auxilia quotas set --workspace NAME [--instances N] [--instance-hours N] [--threads-per-agent N] [--cost-budget AMOUNT]\n" +
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
		fs.Func("cost-budget", "estimated cost per calendar month that alerts, in the rates' currency (0: none)", budgetFlag(&update.CostBudget))
	}
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("quotas %s: %w\n%s", args[0], err, quotasUsage)
	}
	if *workspace == "" {
		return fmt.Errorf("quotas %s: --workspace is required\n%s", args[0], quotasUsage)
	}
	if args[0] == "set" && update == (auxilia.QuotaSettings{}) {
		return fmt.Errorf("quotas set: give at least one of --instances, --instance-hours, --threads-per-agent, --cost-budget\n%s", quotasUsage)
	}
	db, err := openDB(ctx, cfg, newLogger(cfg.LogLevel))
	if err != nil {
		return err
	}
	defer db.Close()
	q := app.NewQuotas(db, app.NewUsage(db, metering.Options{Rates: cfg.CostRates, Currency: cfg.CostCurrency}), cfg.CostCurrency)
	var use []auxilia.QuotaUse
	if args[0] == "set" {
		use, err = q.Set(ctx, *workspace, update)
	} else {
		use, err = q.Show(ctx, *workspace)
	}
	var budget auxilia.Budget
	if err == nil {
		budget, err = q.ShowBudget(ctx, *workspace)
	}
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		return fmt.Errorf("quotas %s: no workspace is called %q", args[0], *workspace)
	}
	if err != nil {
		return err
	}
	return printQuotas(out, use, budget)
}

// budgetFlag parses the cost budget's flag: an amount, 0 for none.
func budgetFlag(into **float64) func(string) error {
	return func(v string) error {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || n < 0 || n != n || n > 1e12 {
			return fmt.Errorf("--cost-budget must be an amount of 0 or more (0 for none), such as 500 or 99.50, not %q", v)
		}
		*into = &n
		return nil
	}
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

// printQuotas writes each quota, where its limit comes from, and its use,
// then the cost budget and the month's estimated cost.
func printQuotas(out io.Writer, use []auxilia.QuotaUse, budget auxilia.Budget) error {
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
	limit, from, used := fmt.Sprintf("%.2f %s", budget.Limit, budget.Currency), "workspace", "no rates set (AUXILIA_COST_RATES)"
	if budget.Limit == 0 {
		limit, used = "none", "not measured"
	}
	if budget.Default {
		from = "server default"
	}
	if budget.Cost != nil {
		used = fmt.Sprintf("%.2f %s estimated", *budget.Cost, budget.Currency)
		if budget.Limit > 0 {
			used += fmt.Sprintf(" (%d%%)", int(*budget.Cost*100/budget.Limit))
		}
	}
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", auxilia.AlertCostBudget, limit, from, used)
	if err := w.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(out, "The cost budget alerts at 80 and 100 %; it refuses nothing. Its cost is an estimate from the operator's rates, not a bill.")
	return err
}
