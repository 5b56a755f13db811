// Command auxilia runs Auxilia sandboxes: the API server and its admin tasks.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: auxilia <command> [flags]

commands:
  serve                  run the server (configured by environment variables; see the README)
  migrate                bring the database schema up to date and exit
  tokens create          create an API token: --workspace NAME --role admin|member [--name NAME]
  quotas set             set a workspace's quotas (0: no limit): --workspace NAME [--instances N]
                         [--instance-hours N] [--threads-per-agent N]; unset ones keep the AUXILIA_QUOTA_* default
  quotas show            show a workspace's quotas and their use: --workspace NAME
  keys generate          print a new secret key for AUXILIA_SECRET_KEYS
  keys rotate            re-encrypt every stored secret under the first key of AUXILIA_SECRET_KEYS
  apply -f FILE          create or update the file's sandboxes and agents on the server at AUXILIA_URL
                         (with AUXILIA_TOKEN), each change checked by the server first: [--dry-run]
                         shows the changes only, [--prune] deletes what apply made that the file no
                         longer has, [--detailed-exitcode] exits 2 when there were changes, [-o json]
                         writes the plan as JSON; secrets come from the variables secret_env names
                         (never AUXILIA_ ones; only those starting with AUXILIA_APPLY_SECRET_PREFIX, when set)
  export                 write the server's sandboxes and agents in apply's format, secrets left out
  version                print the version of this build
  help                   print this help
`

// exitStatus is an outcome that is not an error but has an exit status of
// its own (apply --detailed-exitcode's 2: there were changes).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := dispatch(ctx, os.Args[1:])
	var status exitStatus
	switch {
	case errors.As(err, &status):
		os.Exit(int(status))
	case err != nil:
		fmt.Fprintln(os.Stderr, "auxilia:", err)
		os.Exit(1)
	}
}

func dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("no command given")
	}
	// These talk to a server over HTTP: the server's own settings play no part.
	switch args[0] {
	case "apply":
		return apply(ctx, args[1:], os.Stdout)
	case "export":
		return export(ctx, os.Stdout)
	case "version", "--version":
		fmt.Println(version())
		return nil
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	}
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		return err
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		return serve(ctx, cfg)
	case "migrate":
		return migrate(ctx, cfg)
	case "tokens":
		return tokens(ctx, cfg, rest)
	case "quotas":
		return quotas(ctx, cfg, rest, os.Stdout)
	case "keys":
		return keys(ctx, cfg, rest)
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}
