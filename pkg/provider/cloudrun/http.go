package cloudrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/provider"
)

const providerName = "cloudrun"

// Bounds for calls that do not run a command: control calls, files, and snapshots, which move whole workspaces.
const (
	callTimeout     = 2 * time.Minute
	snapshotTimeout = 15 * time.Minute
)

// client talks to one gateway.
type client struct {
	base   string // the gateway's URL, without a trailing slash
	secret string
	cfg    Config
	http   *http.Client
}

// call is one request to the gateway.
type call struct {
	op          string // what we asked, for errors: "create", "execute", …
	method      string
	path        string
	query       url.Values
	body        io.Reader
	contentType string
	accept      string
	noAuth      bool
	timeout     time.Duration // bounds the call, reading its answer included (0: ctx alone)
}

// jsonBody encodes v for a call.
func jsonBody(v any) (io.Reader, string) {
	raw, _ := json.Marshal(v)
	return bytes.NewReader(raw), "application/json"
}

// caller sends the calls to the gateway.
func (c *client) caller() *provider.Caller {
	return &provider.Caller{
		Provider:  providerName,
		HTTP:      c.http,
		Secret:    c.secret,
		Auth:      func(h http.Header) { h.Set("Authorization", "Bearer "+c.secret) },
		UserAgent: "auxilia-cloudrun",
		Refused:   answerError,
	}
}

// providerCall is the call as the caller sends it.
func (c *client) providerCall(k call) provider.Call {
	u := c.base + k.path
	if len(k.query) > 0 {
		u += "?" + k.query.Encode()
	}
	return provider.Call{Op: k.op, Method: k.method, URL: u, Body: k.body, ContentType: k.contentType,
		Accept: k.accept, NoAuth: k.noAuth, Timeout: k.timeout}
}

// send makes the call and returns the body of its 2xx answer, to read as it
// arrives; anything else is a *provider.Error.
func (c *client) send(ctx context.Context, k call) (io.ReadCloser, error) {
	pc := c.providerCall(k)
	pc.Stream = true
	a, err := c.caller().Send(ctx, pc)
	if err != nil {
		return nil, err
	}
	return a.Stream, nil
}

// callJSON makes the call and decodes its JSON answer into out (unless nil).
func (c *client) callJSON(ctx context.Context, k call, out any) error {
	return c.caller().JSON(ctx, c.providerCall(k), out)
}

// reason is what a gateway's problem says went wrong: a shared code, and
// what it is about where the code alone does not tell.
type reason struct {
	code    auxilia.Code
	subject wire.Subject
}

// reasonOf is what a gateway's problem says went wrong.
func reasonOf(p wire.Problem) reason { return reason{p.Reason, p.Subject} }

// reasonKinds sorts the gateway's reasons into the contract's error kinds;
// any other reason is sorted by its status.
var reasonKinds = map[reason]error{
	{auxilia.CodeUnauthorized, ""}:                  provider.ErrUnauthorized,
	{auxilia.CodeUnauthorized, wire.SubjectSecret}:  provider.ErrUnauthorized,
	{auxilia.CodeNotFound, wire.SubjectSandbox}:     provider.ErrGone,
	{auxilia.CodeNotFound, wire.SubjectSnapshot}:    provider.ErrGone,
	{auxilia.CodeNotFound, wire.SubjectFile}:        provider.ErrNotFound,
	{auxilia.CodeInvalid, ""}:                       provider.ErrInvalidConfig,
	{auxilia.CodeInvalid, wire.SubjectBucket}:       provider.ErrInvalidConfig,
	{auxilia.CodeNotFound, wire.SubjectBucket}:      provider.ErrInvalidConfig,
	{auxilia.CodeForbidden, wire.SubjectBucket}:     provider.ErrInvalidConfig,
	{auxilia.CodeUnavailable, wire.SubjectCapacity}: provider.ErrQuota,
}

// answerError turns a gateway's error answer into a *provider.Error with its words.
func answerError(op string, a provider.Answer) error {
	var p wire.Problem
	msg := ""
	if json.Unmarshal(a.Body, &p) == nil && (p.Detail != "" || p.Reason != "") {
		msg = orDefault(p.Detail, p.Title)
	} else {
		// Not the gateway's problem document: some other server answers at this url.
		msg = fmt.Sprintf("%d %s from a server that does not answer as the Auxilia gateway", a.Status, http.StatusText(a.Status))
		if body := strings.TrimSpace(string(a.Body)); body != "" && len(body) <= 200 {
			msg += ": " + body
		}
	}
	kind, ok := reasonKinds[reasonOf(p)]
	if !ok {
		kind = provider.StatusKind(a.Status)
	}
	return &gatewayError{reason: reasonOf(p), err: provider.Errorf(kind, providerName, op, "%s", msg)}
}

// gatewayError is a *provider.Error that remembers the gateway's reason.
type gatewayError struct {
	reason reason
	err    *provider.Error
}

func (e *gatewayError) Error() string { return e.err.Error() }
func (e *gatewayError) Unwrap() error { return e.err }

// hasReason reports whether err is the gateway's answer with that code about that subject.
func hasReason(err error, code auxilia.Code, subject wire.Subject) bool {
	var ge *gatewayError
	return errors.As(err, &ge) && ge.reason == reason{code, subject}
}

// problemError is answerError for a problem that arrived inside an event stream.
func problemError(op string, p wire.Problem) error {
	kind, ok := reasonKinds[reasonOf(p)]
	if !ok {
		kind = provider.ErrFailed
	}
	return provider.Errorf(kind, providerName, op, "%s", orDefault(p.Detail, p.Title))
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
