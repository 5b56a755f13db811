package opensandboxtest

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// workspace is the one folder of a fake sandbox that commands see: its
// files are the sandbox's own, as the file API sees them.
const workspace = "/workspace"

// result is how a command ended.
type result struct {
	exitCode int
	timedOut bool
	err      error // the command could not start
}

// runner runs one command line of a sandbox.
type runner interface {
	run(ctx context.Context, sb *sandbox, command, cwd string, env map[string]string, timeout time.Duration, stdout, stderr io.Writer) result
}

// jailRunner runs commands in a bubblewrap jail whose /workspace is the
// sandbox's, with no network and the host system read-only.
type jailRunner struct{}

func (jailRunner) run(ctx context.Context, sb *sandbox, command, cwd string, env map[string]string, timeout time.Duration, stdout, stderr io.Writer) result {
	switch {
	case cwd == "":
		command = "cd / && " + command // execd's own working directory
	case cwd != workspace && !strings.HasPrefix(cwd, workspace+"/"):
		return result{err: fmt.Errorf("the fake execd runs commands under %s only, not in %s", workspace, cwd)}
	case cwd != workspace:
		command = "cd " + shell.Quote(path.Clean(cwd)) + " && " + command
	}
	jail := bubblewrap.Jail{Root: filepath.Join(sb.root, rel(workspace)), WorkDir: workspace, Env: sb.environment(env)}
	// execd runs the line with bash where the image has it, else sh
	// (components/execd/pkg/runtime/command.go, getShell).
	res, err := jail.Run(ctx, bubblewrap.InBash(command), timeout, stdout, stderr)
	if err != nil && ctx.Err() == nil && !res.TimedOut {
		return result{err: err}
	}
	return result{exitCode: res.ExitCode, timedOut: res.TimedOut}
}

// environment is the sandbox's env (from create) with the command's on top.
func (sb *sandbox) environment(extra map[string]string) []string {
	merged := map[string]string{}
	for k, v := range sb.request.Env {
		if v != nil {
			merged[k] = *v
		}
	}
	for k, v := range extra {
		merged[k] = v
	}
	env := make([]string, 0, len(merged))
	for k, v := range merged {
		env = append(env, k+"="+v)
	}
	return env
}
