package provider

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Instrument wraps a client so that every call is counted and timed under
// its provider's name, with its outcome: "ok", or the failure's kind. Its
// errors never carry the secret: a provider's words pass through Scrub
// (the secret masked in any of its forms, then clipped) before the message
// goes anywhere.
// The wrapped client is a TerminalOpener when c is.
func Instrument(c Client, provider string, m auxilia.Metrics, secret string) Client {
	i := instrumented{c: c, provider: provider, m: m, secret: secret}
	if opener, ok := c.(TerminalOpener); ok {
		return instrumentedTerminal{instrumented: i, opener: opener}
	}
	return i
}

// ProviderOf names the provider of an instrumented client ("" for another).
func ProviderOf(c Client) string {
	switch i := c.(type) {
	case instrumented:
		return i.provider
	case instrumentedTerminal:
		return i.provider
	}
	return ""
}

type instrumented struct {
	c        Client
	provider string
	m        auxilia.Metrics
	secret   string
}

// observe counts a call, then scrubs its error.
func (i instrumented) observe(op string, start time.Time, err *error) {
	i.m.ProviderCalled(i.provider, op, Outcome(*err), time.Since(start))
	*err = ScrubError(*err, i.secret)
}

// ScrubError returns err fit to show: a provider error's words scrubbed of
// the secret and clipped, any other error's text scrubbed of it. It keeps
// the error's kind for errors.Is.
func ScrubError(err error, secret string) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		clean := *pe
		clean.Message = Scrub(pe.Message, secret)
		return &clean
	}
	if text := Scrub(err.Error(), secret); text != err.Error() {
		return scrubbed{text: text, err: err}
	}
	return err
}

// scrubbed is an error whose text was scrubbed. It answers errors.Is as
// the original did, but does not unwrap to it: that would show its text.
type scrubbed struct {
	text string
	err  error
}

func (s scrubbed) Error() string { return s.text }

func (s scrubbed) Is(target error) bool { return errors.Is(s.err, target) }

// Outcome names how a provider call ended, for metrics.
func Outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, ErrGone):
		return "gone"
	case errors.Is(err, ErrNotFound):
		return "not_found"
	case errors.Is(err, ErrPath):
		return "bad_path"
	case errors.Is(err, ErrUnauthorized):
		return "unauthorized"
	case errors.Is(err, ErrUnreachable):
		return "unreachable"
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, ErrInvalidConfig):
		return "invalid_config"
	case errors.Is(err, ErrBusy):
		return "busy"
	case errors.Is(err, ErrRateLimited):
		return "rate_limited"
	case errors.Is(err, context.Canceled):
		return "canceled"
	default:
		return "failed"
	}
}

// CloseIdleConnections releases the client's pooled connections, where it has any.
func (i instrumented) CloseIdleConnections() {
	if c, ok := i.c.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// FindCreated finds a created instance by its labels, where the provider can.
func (i instrumented) FindCreated(ctx context.Context, l Labels) (Instance, bool, error) {
	f, ok := i.c.(Finder)
	if !ok {
		return Instance{}, false, Errorf(ErrUnsupported, i.provider, "find", "instances cannot be found by label")
	}
	start := time.Now()
	inst, found, err := f.FindCreated(ctx, l)
	i.observe("find", start, &err)
	return inst, found, err
}

// Relabel gives an instance new labels, where the provider can.
func (i instrumented) Relabel(ctx context.Context, inst Instance, l Labels) error {
	r, ok := i.c.(Relabeler)
	if !ok {
		return Errorf(ErrUnsupported, i.provider, "relabel", "instances cannot be relabelled")
	}
	start := time.Now()
	err := r.Relabel(ctx, inst, l)
	i.observe("relabel", start, &err)
	return err
}

// ListTree lists a tree in one call, where the provider can
// (TreeLister); ErrUnsupported where it cannot, for the caller to walk.
func (i instrumented) ListTree(ctx context.Context, inst Instance, root string, limit int) ([]string, bool, error) {
	l, ok := i.c.(TreeLister)
	if !ok {
		return nil, false, Errorf(ErrUnsupported, i.provider, "list tree", "trees are walked")
	}
	start := time.Now()
	paths, truncated, err := l.ListTree(ctx, inst, root, limit)
	i.observe("list tree", start, &err)
	return paths, truncated, err
}

func (i instrumented) Probe(ctx context.Context) error {
	start := time.Now()
	err := i.c.Probe(ctx)
	i.observe("probe", start, &err)
	return err
}

func (i instrumented) Create(ctx context.Context, l Labels) (Instance, error) {
	start := time.Now()
	out, err := i.c.Create(ctx, l)
	i.observe("create", start, &err)
	return out, err
}

func (i instrumented) Reconnect(ctx context.Context, inst Instance) (Instance, error) {
	start := time.Now()
	out, err := i.c.Reconnect(ctx, inst)
	i.observe("reconnect", start, &err)
	return out, err
}

func (i instrumented) KeepAlive(ctx context.Context, inst Instance) error {
	start := time.Now()
	err := i.c.KeepAlive(ctx, inst)
	i.observe("keepalive", start, &err)
	return err
}

func (i instrumented) Persist(ctx context.Context, inst Instance) error {
	start := time.Now()
	err := i.c.Persist(ctx, inst)
	i.observe("persist", start, &err)
	return err
}

func (i instrumented) Destroy(ctx context.Context, inst Instance) error {
	start := time.Now()
	err := i.c.Destroy(ctx, inst)
	i.observe("destroy", start, &err)
	return err
}

func (i instrumented) Execute(ctx context.Context, inst Instance, req ExecRequest) (ExecResult, error) {
	start := time.Now()
	out, err := i.c.Execute(ctx, inst, req)
	i.observe("execute", start, &err)
	return out, err
}

func (i instrumented) ListFiles(ctx context.Context, inst Instance, dir string, limit int) ([]FileInfo, error) {
	start := time.Now()
	out, err := i.c.ListFiles(ctx, inst, dir, limit)
	i.observe("list_files", start, &err)
	return out, err
}

func (i instrumented) Stat(ctx context.Context, inst Instance, p string) (FileInfo, error) {
	start := time.Now()
	out, err := i.c.Stat(ctx, inst, p)
	i.observe("stat", start, &err)
	return out, err
}

// OpenFile is counted and timed until the file opens; a failure while
// reading it is blanked of the secret as well.
func (i instrumented) OpenFile(ctx context.Context, inst Instance, p string) (io.ReadCloser, error) {
	start := time.Now()
	out, err := i.c.OpenFile(ctx, inst, p)
	i.observe("read_file", start, &err)
	if err != nil {
		return nil, err
	}
	return NewStream(out, func(err error) error { return ScrubError(err, i.secret) }, nil), nil
}

func (i instrumented) WriteFile(ctx context.Context, inst Instance, p string, data []byte) error {
	start := time.Now()
	err := i.c.WriteFile(ctx, inst, p, data)
	i.observe("write_file", start, &err)
	return err
}

func (i instrumented) RemoveFile(ctx context.Context, inst Instance, p string) error {
	start := time.Now()
	err := i.c.RemoveFile(ctx, inst, p)
	i.observe("remove_file", start, &err)
	return err
}
