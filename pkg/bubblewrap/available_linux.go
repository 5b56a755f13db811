package bubblewrap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// namespaces are the kinds Run unshares, each with the bwrap flag that asks for it.
var namespaces = []struct{ name, flag string }{
	{"user", "--unshare-user"},
	{"PID", "--unshare-pid"},
	{"network", "--unshare-net"},
	{"IPC", "--unshare-ipc"},
	{"UTS (hostname)", "--unshare-uts"},
	{"cgroup", "--unshare-cgroup"},
}

// Available reports whether bwrap (at path; "" = look up "bwrap" in PATH) is
// installed and can create the namespaces Run needs on this host, and with
// network whether jails can be connected too; the error says what is
// missing, in words. It first removes the folders of trial jails that
// servers which crashed left behind.
func Available(ctx context.Context, bwrapPath string, network bool) error {
	bwrap, err := lookBwrap(bwrapPath)
	if err != nil {
		return err
	}
	asRoot := os.Geteuid() == 0
	if _, err := toolsFor(asRoot, network); err != nil {
		return err
	}
	if network {
		if err := checkTun(asRoot); err != nil {
			return err
		}
	}
	sweepProbes(os.TempDir())
	jailErr := tryJail(ctx, bwrapPath, network)
	if jailErr == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Ask for each namespace alone, to name the one this host refuses.
	for _, ns := range namespaces {
		flags := []string{"--unshare-user", ns.flag}
		if err := tryBwrap(ctx, bwrap, flags); err != nil {
			return fmt.Errorf("bubblewrap cannot create a %s namespace on this host: %w", ns.name, err)
		}
	}
	return fmt.Errorf("bubblewrap cannot start a jail on this host: %w", jailErr)
}

// tryJail runs an empty command in a jail with every limit set.
func tryJail(ctx context.Context, bwrap string, network bool) error {
	dir, err := newProbeFolder(os.TempDir())
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	j := Jail{Bwrap: bwrap, Root: dir, WorkDir: "/probe", Network: network, MemoryMB: 64, MaxProcesses: 8, MaxFileMB: 1}
	if uid, gid := j.User(); uid != os.Geteuid() {
		if err := os.Chown(dir, uid, gid); err != nil {
			return err
		}
	}
	res, err := j.Run(ctx, "exit 0", time.Minute, nil, nil)
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("an empty command exited with %d", res.ExitCode)
	}
	return err
}

// tryBwrap runs bwrap with flags as Run would (as the same user), on the
// host's own filesystem, read-only.
func tryBwrap(ctx context.Context, bwrap string, flags []string) error {
	args := append(flags, "--ro-bind", "/", "/", "/bin/sh", "-c", "exit 0")
	cmd := exec.CommandContext(ctx, bwrap, args...)
	cmd.Env = []string{}
	if os.Geteuid() == 0 {
		uid, gid := Jail{}.User()
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	if said := strings.TrimSpace(string(out)); said != "" {
		return errors.New(said)
	}
	return err
}
