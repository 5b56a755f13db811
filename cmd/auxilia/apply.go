package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/auxilia/sandboxes/pkg/client"
	"github.com/auxilia/sandboxes/pkg/manifest"
)

// remote is the client of the server at AUXILIA_URL, with AUXILIA_TOKEN.
func remote() (*client.API, error) {
	url, token := os.Getenv("AUXILIA_URL"), os.Getenv("AUXILIA_TOKEN")
	if url == "" || token == "" {
		return nil, fmt.Errorf("set AUXILIA_URL (the server, such as http://localhost:8080) and AUXILIA_TOKEN (an admin token)")
	}
	return client.New(url, token, client.Options{})
}

// applyUsage introduces apply's flags.
const applyUsage = `usage: auxilia apply -f FILE [--dry-run] [--prune] [--detailed-exitcode] [-o text|json]

Brings the server at AUXILIA_URL (with AUXILIA_TOKEN) in line with FILE. Every change
is checked by the server first (saving nothing); when any is refused, none is made.
Exit status: 0 success, 1 an error or a refused plan; with --detailed-exitcode, 2
when there were changes (pending, with --dry-run) and 0 when there were none.

`

// apply brings the server in line with a manifest file.
func apply(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String("f", "", "the manifest (YAML 1.2 or JSON); - reads standard input")
	dryRun := fs.Bool("dry-run", false, "show the changes, checked by the server, and make none")
	prune := fs.Bool("prune", false, "delete the sandboxes and agents apply made that the file no longer has")
	detailed := fs.Bool("detailed-exitcode", false, "exit 2 when there were changes, 0 when none, 1 on an error")
	format := fs.String("o", "text", "the output: text, or json (the plan and what became of each change)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(out, applyUsage)
		fs.SetOutput(out)
		fs.PrintDefaults()
		return nil
	} else if err != nil {
		return fmt.Errorf("%w (auxilia apply --help lists the flags)", err)
	}
	if *file == "" {
		return fmt.Errorf("apply needs -f FILE")
	}
	if *format != "text" && *format != "json" {
		return fmt.Errorf("-o must be text or json, not %q", *format)
	}
	prefix := os.Getenv("AUXILIA_APPLY_SECRET_PREFIX")
	if manifest.IsOwn(prefix) {
		return fmt.Errorf("AUXILIA_APPLY_SECRET_PREFIX must not start with %s: apply never sends its own variables", manifest.OwnPrefix)
	}
	var raw []byte
	var err error
	if *file == "-" {
		raw, err = io.ReadAll(os.Stdin)
	} else {
		raw, err = os.ReadFile(*file)
	}
	if err != nil {
		return err
	}
	f, err := manifest.Parse(raw)
	if err != nil {
		return err
	}
	api, err := remote()
	if err != nil {
		return err
	}
	res, err := manifest.Apply(ctx, api, f, manifest.Options{DryRun: *dryRun, Prune: *prune, Getenv: os.Getenv, SecretPrefix: prefix})
	if *format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if werr := enc.Encode(res); werr != nil {
			return werr
		}
	} else if len(res.Problems) == 0 {
		writePlan(out, res)
	}
	if err != nil {
		return err
	}
	if *detailed && len(res.Changes) > 0 {
		return exitStatus(2)
	}
	return nil
}

// writePlan writes each change as a line, with why it was refused.
func writePlan(out io.Writer, res manifest.Result) {
	for _, c := range res.Changes {
		fmt.Fprintln(out, c.Summary)
		if c.Outcome == manifest.Refused {
			fmt.Fprintln(out, "    refused:", c.Error)
		}
	}
	if len(res.Changes) == 0 {
		fmt.Fprintln(out, "no changes")
	}
}

// export writes the server's sandboxes and agents as a manifest.
func export(ctx context.Context, out io.Writer) error {
	api, err := remote()
	if err != nil {
		return err
	}
	f, err := manifest.Export(ctx, api)
	if err != nil {
		return err
	}
	yaml, err := manifest.Marshal(f)
	if err != nil {
		return err
	}
	_, err = out.Write(yaml)
	return err
}
