package providertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// Fake is an in-process provider for testing what uses providers: each
// instance is a folder on the host, commands run there with sh, and every
// call is counted and can be slowed down or made to fail.
type Fake struct {
	// Counter counts the calls by operation: "probe", "create", "reconnect", …
	fakekit.Counter[string]

	dir string

	mu        sync.Mutex
	instances map[string]string // provider id → folder
	latency   time.Duration
	fail      map[string]error
	flaky     map[string]flake
	onExecute func(command string) (provider.ExecResult, bool)
	installs  []string
	onCreate  func(ctx context.Context)
	stalled   map[string]bool // sandbox ids whose creates never answer
}

// NewFake returns a fake provider keeping its instances under dir.
func NewFake(dir string) *Fake {
	return &Fake{dir: dir, instances: map[string]string{}, fail: map[string]error{},
		flaky: map[string]flake{}}
}

// FakeConfig is the fake's config: the settings every provider has.
type FakeConfig struct {
	provider.Common
}

func (c *FakeConfig) Validate(provider.Policy) []provider.FieldError { return nil }

// Describe names the fake to the catalogue.
func (f *Fake) Describe() provider.Descriptor {
	return provider.Descriptor{Name: "fake", Title: "Fake", Description: "An in-process provider for tests.", Shell: provider.ShellSh,
		Capabilities: provider.Terminal}
}
func (f *Fake) NewConfig() provider.Config                      { return &FakeConfig{Common: provider.DefaultCommon()} }
func (f *Fake) Open(provider.Settings) (provider.Client, error) { return f, nil }

// SetLatency makes every call take at least d.
func (f *Fake) SetLatency(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.latency = d
}

// Fail makes op fail with err from now on (nil to stop).
func (f *Fake) Fail(op string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fail[op] = err
}

// flake makes every nth call of an operation fail with err, or hang until
// its caller gives up when err is nil.
type flake struct {
	every int
	err   error
}

// Flaky makes every nth call of op fail with err, or hang until the
// caller's context ends when err is nil.
func (f *Fake) Flaky(op string, every int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flaky[op] = flake{every: every, err: err}
}

// OnExecute lets a test answer some commands itself (return false to run them).
func (f *Fake) OnExecute(fn func(command string) (provider.ExecResult, bool)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onExecute = fn
}

// Installs are the commands run as default packages' installs
// (ExecRequest.Install), in order.
func (f *Fake) Installs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.installs)
}

// OnCreate runs fn at the start of every create (a test may block there).
func (f *Fake) OnCreate(fn func(ctx context.Context)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onCreate = fn
}

// Stall makes the creates for one sandbox hang, as a provider that accepts
// the connection and never answers: each ends only with its context.
func (f *Fake) Stall(sandboxID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stalled == nil {
		f.stalled = map[string]bool{}
	}
	f.stalled[sandboxID] = true
}

// Live returns the ids of the instances the fake has.
func (f *Fake) Live() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for id := range f.instances {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Vanish makes an instance disappear, as if the provider had expired it.
func (f *Fake) Vanish(id string) {
	f.mu.Lock()
	dir := f.instances[id]
	delete(f.instances, id)
	f.mu.Unlock()
	os.RemoveAll(dir)
}

// enter counts a call, waits the latency and returns the op's injected failure.
func (f *Fake) enter(ctx context.Context, op string) error {
	f.mu.Lock()
	f.Count(op)
	latency, err := f.latency, f.fail[op]
	fl, flaky := f.flaky[op]
	due := flaky && f.Calls(op)%fl.every == 0
	f.mu.Unlock()
	if due && fl.err == nil {
		<-ctx.Done()
		return provider.Errorf(provider.ErrTimeout, "fake", op, "no answer: %v", ctx.Err())
	}
	if due {
		err = fl.err
	}
	if latency > 0 && !fakekit.Wait(ctx, latency, nil) {
		return provider.Errorf(provider.ErrTimeout, "fake", op, "%v", ctx.Err())
	}
	return err
}

func (f *Fake) folder(op, id string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	dir, ok := f.instances[id]
	if !ok {
		return "", provider.Errorf(provider.ErrGone, "fake", op, "no instance %s", id)
	}
	return dir, nil
}

func (f *Fake) Probe(ctx context.Context) error { return f.enter(ctx, "probe") }

func (f *Fake) Create(ctx context.Context, labels provider.Labels) (provider.Instance, error) {
	if err := f.enter(ctx, "create"); err != nil {
		return provider.Instance{}, err
	}
	f.mu.Lock()
	hook, stalled := f.onCreate, f.stalled[labels.Sandbox]
	f.mu.Unlock()
	if stalled {
		<-ctx.Done()
		return provider.Instance{}, provider.Errorf(provider.ErrTimeout, "fake", "create", "no answer: %v", ctx.Err())
	}
	if hook != nil {
		hook(ctx)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	id := "fake-" + hex.EncodeToString(b)
	dir := filepath.Join(f.dir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return provider.Instance{}, err
	}
	f.mu.Lock()
	f.instances[id] = dir
	f.mu.Unlock()
	provider.Created(ctx, id)
	return provider.Instance{ID: id, WorkDir: dir}, nil
}

func (f *Fake) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	if err := f.enter(ctx, "reconnect"); err != nil {
		return inst, err
	}
	_, err := f.folder("reconnect", inst.ID)
	return inst, err
}

// Relabel counts the call; the fake keeps no labels.
func (f *Fake) Relabel(ctx context.Context, inst provider.Instance, _ provider.Labels) error {
	if err := f.enter(ctx, "relabel"); err != nil {
		return err
	}
	_, err := f.folder("relabel", inst.ID)
	return err
}

func (f *Fake) KeepAlive(ctx context.Context, inst provider.Instance) error {
	if err := f.enter(ctx, "keepalive"); err != nil {
		return err
	}
	_, err := f.folder("keepalive", inst.ID)
	return err
}

func (f *Fake) Persist(ctx context.Context, _ provider.Instance) error {
	return f.enter(ctx, "persist")
}

func (f *Fake) Destroy(ctx context.Context, inst provider.Instance) error {
	if err := f.enter(ctx, "destroy"); err != nil {
		return err
	}
	f.Vanish(inst.ID)
	return nil
}

func (f *Fake) Execute(ctx context.Context, inst provider.Instance, req provider.ExecRequest) (provider.ExecResult, error) {
	if err := f.enter(ctx, "execute"); err != nil {
		return provider.ExecResult{}, err
	}
	dir, err := f.folder("execute", inst.ID)
	if err != nil {
		return provider.ExecResult{}, err
	}
	f.mu.Lock()
	hook := f.onExecute
	if req.Install {
		f.installs = append(f.installs, req.Command)
	}
	f.mu.Unlock()
	if hook != nil {
		if res, ok := hook(req.Command); ok {
			return res, nil
		}
	}
	out := provider.NewOutput(req)
	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", req.Command)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	cmd.Stdout = streamWriter{out, "stdout"}
	cmd.Stderr = streamWriter{out, "stderr"}
	start := time.Now()
	err = cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return out.Result(-1, true, req.Timeout, time.Since(start)), nil
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return provider.ExecResult{}, err
	}
	return out.Result(code, false, req.Timeout, time.Since(start)), nil
}

type streamWriter struct {
	out    *provider.Output
	stream string
}

func (w streamWriter) Write(p []byte) (int, error) {
	w.out.Write(w.stream, string(p))
	return len(p), nil
}

// hostPath maps a sandbox path (the instance folder is its working directory) to the host.
func (f *Fake) hostPath(op string, inst provider.Instance, p string) (string, error) {
	dir, err := f.folder(op, inst.ID)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(p, inst.WorkDir) {
		return "", provider.Errorf(provider.ErrNotFound, "fake", op, "%s is outside the instance", p)
	}
	return filepath.Join(dir, strings.TrimPrefix(p, inst.WorkDir)), nil
}

func (f *Fake) ListFiles(ctx context.Context, inst provider.Instance, dir string, limit int) ([]provider.FileInfo, error) {
	if err := f.enter(ctx, "list"); err != nil {
		return nil, err
	}
	host, err := f.hostPath("list", inst, dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(host)
	if err != nil {
		return nil, fileError("list", err)
	}
	var out []provider.FileInfo
	for _, e := range entries[:min(len(entries), limit)] {
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, fileInfo(filepath.Join(dir, e.Name()), info))
	}
	return out, nil
}

func (f *Fake) Stat(ctx context.Context, inst provider.Instance, p string) (provider.FileInfo, error) {
	if err := f.enter(ctx, "stat"); err != nil {
		return provider.FileInfo{}, err
	}
	host, err := f.hostPath("stat", inst, p)
	if err != nil {
		return provider.FileInfo{}, err
	}
	info, err := os.Stat(host)
	if errors.Is(err, syscall.ENOTDIR) {
		err = fs.ErrNotExist // a parent is a file: no such path
	}
	if err != nil {
		return provider.FileInfo{}, fileError("stat", err)
	}
	return fileInfo(p, info), nil
}

func (f *Fake) OpenFile(ctx context.Context, inst provider.Instance, p string) (io.ReadCloser, error) {
	if err := f.enter(ctx, "read"); err != nil {
		return nil, err
	}
	host, err := f.hostPath("read", inst, p)
	if err != nil {
		return nil, err
	}
	file, err := os.Open(host)
	if err != nil {
		return nil, fileError("read", err)
	}
	if info, err := file.Stat(); err != nil || !info.Mode().IsRegular() {
		file.Close()
		return nil, provider.Errorf(provider.ErrFailed, "fake", "read", "%s is not a regular file", p)
	}
	return provider.NewStream(file, func(err error) error { return fileError("read", err) }, nil), nil
}

func (f *Fake) WriteFile(ctx context.Context, inst provider.Instance, p string, data []byte) error {
	if err := f.enter(ctx, "write"); err != nil {
		return err
	}
	host, err := f.hostPath("write", inst, p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
		return fileError("write", err)
	}
	if err := os.WriteFile(host, data, 0o644); err != nil {
		return fileError("write", err)
	}
	return nil
}

func (f *Fake) RemoveFile(ctx context.Context, inst provider.Instance, p string) error {
	if err := f.enter(ctx, "remove"); err != nil {
		return err
	}
	host, err := f.hostPath("remove", inst, p)
	if err != nil {
		return err
	}
	return fileError("remove", os.Remove(host))
}

func fileInfo(p string, info fs.FileInfo) provider.FileInfo {
	return provider.FileInfo{Path: p, Dir: info.IsDir(), Size: info.Size(), ModifiedAt: info.ModTime()}
}

// fileError words a file system failure as a provider does.
func fileError(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return provider.Errorf(provider.ErrNotFound, "fake", op, "%v", err)
	}
	return provider.Errorf(provider.ErrFailed, "fake", op, "%v", err)
}
