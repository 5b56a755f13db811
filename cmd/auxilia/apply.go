package main

import (
	"context"
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

// apply brings the server in line with a manifest file.
func apply(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("apply", flag.ContinueOnError)
	file := fs.String("f", "", "the manifest (YAML); - reads standard input")
	dryRun := fs.Bool("dry-run", false, "show the changes and make none")
	prune := fs.Bool("prune", false, "delete the sandboxes and agents the file does not have")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("apply needs -f FILE")
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
	_, err = manifest.Apply(ctx, api, f, manifest.Options{DryRun: *dryRun, Prune: *prune, Getenv: os.Getenv, SecretPrefix: prefix}, out)
	return err
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
