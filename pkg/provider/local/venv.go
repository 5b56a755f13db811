package local

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/jailfs"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// venvDir is each instance's own Python environment, in its folder. It is
// first on PATH, so python3 and pip are the instance's own and pip installs
// into the instance: Debian's system Python refuses pip installs (PEP 668),
// and the jail sees the host's /usr read-only anyway.
const venvDir = workDir + "/.venv"

// venvEnv is what every command of an instance has in its environment.
var venvEnv = []string{"PATH=" + venvDir + "/bin:" + bubblewrap.DefaultPath, "VIRTUAL_ENV=" + venvDir}

const (
	// pythonFolder, in the data folder, holds the template.
	pythonFolder = "python"
	// templateFolder, in pythonFolder, holds the template as the jail that
	// made it saw it: mounted at workDir, the template at venvDir.
	templateFolder = "template"
	// templateDraft starts the name of a folder that a template, or a
	// probe's check, is made in: a server that stopped meanwhile leaves
	// one, and the next sweeps it.
	templateDraft = "draft-"
	// checkVenvTimeout bounds the probe's check that a template can be made.
	checkVenvTimeout = 30 * time.Second
	// makeVenvTimeout bounds making the template: pip installs itself into
	// it, which takes seconds on a busy host.
	makeVenvTimeout = 3 * time.Minute
)

// templateLimits bound what a template may hold: a Python environment is a
// few thousand files.
var templateLimits = jailfs.Limits{MaxBytes: 1 << 30, MaxEntries: 200_000}

// setupUser runs the jails that make and check the template: the template
// is not an instance's.
var setupUser = legacyUser

// TemplateFolder is where the instances of a data folder (a Kind's
// DataDir) keep the Python environment they start from: its .venv is the
// environment every new instance copies. The first instance to need it
// makes it there, unless the folder already holds one whole, made by a
// Python the host still has.
func TemplateFolder(dataDir string) string {
	return filepath.Join(dataDir, pythonFolder, templateFolder)
}

// venvTemplate is the Python environment new instances start from, made once
// per data folder and kept across restarts: copying it costs a new instance
// a quarter of a second, where making one costs five.
type venvTemplate struct {
	mu  sync.Mutex
	dir string // the template's host folder, bound read-only into new jails
	ok  bool   // made or checked by this process
}

// templates holds the template of each data folder's instances.
var templates sync.Map // instances folder → *venvTemplate

func (c *client) template() *venvTemplate {
	t, _ := templates.LoadOrStore(c.instances, &venvTemplate{dir: filepath.Join(c.pythons, templateFolder, ".venv")})
	return t.(*venvTemplate)
}

// checkVenv tells whether a template can be made, in a fraction of the time
// making it takes: whether Python has venv and what ensurepip installs (on
// Debian, python3-venv brings both).
func (c *client) checkVenv(ctx context.Context) error {
	t := c.template()
	t.mu.Lock()
	ok := t.ok
	t.mu.Unlock()
	if ok {
		return nil
	}
	return c.inPythonJail(ctx, func(jail bubblewrap.Jail, python string) error {
		command := "exec " + shell.Quote(python) + " -c 'import venv, ensurepip; ensurepip.version()'"
		return setup(ctx, jail, command, checkVenvTimeout)
	})
}

// venv returns the host folder of the template, made first if need be. A
// template whose Python the host no longer has (it was upgraded) is made
// again. A failure is tried again on the next call: the operator may have
// installed what was missing meanwhile.
func (c *client) venv(ctx context.Context) (string, error) {
	t := c.template()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ok {
		return t.dir, nil
	}
	if !pythonExists(t.dir) {
		if err := c.makeTemplate(ctx, filepath.Dir(t.dir)); err != nil {
			return "", err
		}
	}
	t.ok = true
	return t.dir, nil
}

// makeTemplate makes the template in a draft folder, then moves it to
// folder: a template is there whole or not at all.
func (c *client) makeTemplate(ctx context.Context, folder string) error {
	return c.inPythonJail(ctx, func(jail bubblewrap.Jail, python string) error {
		// Every instance's user reads it: whatever the server's umask.
		command := "umask 022 && exec " + shell.Quote(python) + " -m venv " + venvDir
		if err := setup(ctx, jail, command, makeVenvTimeout); err != nil {
			return err
		}
		if err := os.RemoveAll(folder); err != nil {
			return err
		}
		return os.Rename(jail.Root, folder)
	})
}

// inPythonJail calls use with a jail on a draft folder, removed after, in
// which python is the Python that makes the template. A command that failed
// there says what the host needs.
func (c *client) inPythonJail(ctx context.Context, use func(jail bubblewrap.Jail, python string) error) error {
	if err := os.MkdirAll(c.pythons, 0o700); err != nil {
		return err
	}
	draft, err := os.MkdirTemp(c.pythons, templateDraft)
	if err != nil {
		return err
	}
	defer os.RemoveAll(draft) // gone once renamed
	if err := os.Chmod(draft, 0o755); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(draft, setupUser.UID, setupUser.GID); err != nil {
			return err
		}
	}
	jail := c.jail(setupUser, draft, nil)
	jail.Network = false // ensurepip installs pip from the wheel Python ships
	python := c.python
	if python == "" {
		python = "python3"
	}
	err = use(jail, python)
	if errors.As(err, new(errSetup)) {
		return fmt.Errorf("cannot make a Python virtual environment for the instances with %q -m venv: %v; "+
			"the host needs python3 with its venv module (on Debian: apt-get install python3-venv)", python, err)
	}
	return err
}

// giveVenv copies the template into the new instance's folder, as the
// instance's user: the template is every user's to read.
func (c *client) giveVenv(ctx context.Context, inst provider.Instance) error {
	template, err := c.venv(ctx)
	if err != nil {
		return err
	}
	user, dir, done, err := c.door("create", inst)
	if err != nil {
		return err
	}
	defer done()
	if _, err := user.Copy(filepath.Dir(template), dir, templateLimits); err != nil {
		return fmt.Errorf("cannot copy the Python virtual environment into the instance: %v", bare(err))
	}
	return nil
}

// setup runs a command that readies instances. A command that ran and
// failed is an errSetup, which carries the end of its output; an error of
// the jail is returned as it is.
func setup(ctx context.Context, jail bubblewrap.Jail, command string, timeout time.Duration) error {
	out := provider.NewOutput(provider.ExecRequest{OutputLimit: 2 << 10})
	stdout, stderr := &stream{out: out, name: "stdout"}, &stream{out: out, name: "stderr"}
	res, err := jail.Run(ctx, command, timeout, stdout, stderr)
	if err != nil {
		return err
	}
	stdout.flush()
	stderr.flush()
	switch {
	case res.TimedOut:
		return errSetup{fmt.Sprintf("it did not end within %s", timeout)}
	case res.ExitCode == 0:
		return nil
	}
	msg := fmt.Sprintf("exit code %d", res.ExitCode)
	if output := strings.TrimSpace(out.Result(res.ExitCode, false, timeout, res.Duration).Output); output != "" {
		msg += ": " + output
	}
	return errSetup{msg}
}

// errSetup is a command readying instances that ran and failed.
type errSetup struct{ msg string }

func (e errSetup) Error() string { return e.msg }

// pythonExists reports whether the environment in dir is whole and the
// host still has the Python it was made with.
func pythonExists(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "pyvenv.cfg"))
	if err != nil {
		return false
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		if key, value, ok := strings.Cut(lines.Text(), "="); ok && strings.TrimSpace(key) == "executable" {
			_, err := os.Stat(strings.TrimSpace(value))
			return err == nil
		}
	}
	return false
}
