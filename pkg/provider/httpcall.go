package provider

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"
)

// Caller sends the HTTP calls of one provider client, through the client
// the provider's URL policy checks, and turns what goes wrong into the
// provider's typed errors. What differs between providers is said by its
// fields, the hooks among them.
type Caller struct {
	// Provider names the errors.
	Provider string
	// HTTP sends the calls: a client on NewTransport that follows no redirect.
	HTTP *http.Client
	// Secret is masked in the provider's words.
	Secret string
	// Auth sets the credentials on a call's headers (nil: none).
	Auth func(http.Header)
	// UserAgent, when set, goes with every call.
	UserAgent string
	// Timeout bounds a call that sets none, reading its answer included
	// (zero: only the context does).
	Timeout time.Duration
	// MaxAnswer is the largest successful answer read whole (zero: 16 MiB).
	MaxAnswer int64
	// Refused words an answer outside 2xx as the provider's error, for Send
	// and JSON (nil: its StatusKind, with the status and the body's text).
	Refused func(op string, a Answer) error
}

// maxRefusal is as much of an error answer as is worth reading.
const maxRefusal = 64 << 10

// defaultMaxAnswer is the largest successful answer read whole when the
// provider sets no bound.
const defaultMaxAnswer = 16 << 20

// Call is one HTTP call.
type Call struct {
	Op     string // what is asked, for errors: "create", "read file", …
	Method string
	URL    string
	Header http.Header // besides the credentials
	Body   io.Reader
	// ContentType is the body's; Accept defaults to JSON.
	ContentType, Accept string
	// Timeout bounds this call instead of the Caller's.
	Timeout time.Duration
	// NoAuth sends the call without credentials.
	NoAuth bool
	// Stream leaves a successful answer's body to read as it arrives.
	Stream bool
}

// Answer is what the provider answered: read whole, but for a streamed
// call's successful answer, whose body the caller reads from Stream and
// then closes.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
	Stream io.ReadCloser
}

// OK says whether the answer is a success (2xx).
func (a Answer) OK() bool { return a.Status >= 200 && a.Status <= 299 }

// Do sends the call and returns the answer, whatever its status: only a
// call that got no answer, or one too large to read, is an error.
func (c *Caller) Do(ctx context.Context, k Call) (Answer, error) {
	callCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout := cmp.Or(k.Timeout, c.Timeout); timeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	req, err := http.NewRequestWithContext(callCtx, k.Method, k.URL, k.Body)
	if err != nil {
		cancel()
		return Answer{}, Errorf(ErrInvalidConfig, c.Provider, k.Op, "building the request: %s", err)
	}
	c.setHeaders(req.Header, k)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		cancel()
		return Answer{}, RoundTripError(ctx, c.Provider, k.Op, err)
	}
	a := Answer{Status: resp.StatusCode, Header: resp.Header}
	if k.Stream && a.OK() {
		fail := func(err error) error { return brokenAnswer{RoundTripError(ctx, c.Provider, k.Op, err), err} }
		a.Stream = NewStream(resp.Body, fail, cancel)
		return a, nil
	}
	defer cancel()
	defer resp.Body.Close()
	limit := int64(maxRefusal)
	if a.OK() {
		limit = cmp.Or(c.MaxAnswer, defaultMaxAnswer)
	}
	a.Body, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
	switch {
	case err != nil:
		return Answer{}, RoundTripError(ctx, c.Provider, k.Op, err)
	case int64(len(a.Body)) <= limit:
		return a, nil
	case a.OK():
		return Answer{}, Errorf(ErrFailed, c.Provider, k.Op, "the answer is larger than %d bytes", limit)
	}
	a.Body = a.Body[:limit] // enough of the provider's words
	return a, nil
}

// brokenAnswer is a failed read of a streamed answer: the provider error,
// which also answers errors.Is for its cause, so that a reader can tell an
// answer cut short (io.ErrUnexpectedEOF) from other failures.
type brokenAnswer struct{ err, cause error }

func (b brokenAnswer) Error() string   { return b.err.Error() }
func (b brokenAnswer) Unwrap() []error { return []error{b.err, b.cause} }

func (c *Caller) setHeaders(h http.Header, k Call) {
	h.Set("Accept", cmp.Or(k.Accept, "application/json"))
	if k.ContentType != "" {
		h.Set("Content-Type", k.ContentType)
	}
	if c.UserAgent != "" {
		h.Set("User-Agent", c.UserAgent)
	}
	for name, values := range k.Header {
		for _, v := range values {
			h.Add(name, v)
		}
	}
	if c.Auth != nil && !k.NoAuth {
		c.Auth(h)
	}
}

// Send is Do for a call that must succeed: an answer outside 2xx is the
// provider's refusal, worded by Refused, with the secret masked and the
// provider's words clipped.
func (c *Caller) Send(ctx context.Context, k Call) (Answer, error) {
	a, err := c.Do(ctx, k)
	if err != nil || a.OK() {
		return a, err
	}
	return Answer{}, c.Refusal(k.Op, a)
}

// Refusal words an answer outside 2xx as Send does. A refusal for calling
// too often carries the answer's Retry-After.
func (c *Caller) Refusal(op string, a Answer) error {
	var err error
	if c.Refused != nil {
		err = c.Refused(op, a)
	} else {
		err = Errorf(StatusKind(a.Status), c.Provider, op, "%s", StatusWords(a))
	}
	var pe *Error
	if errors.As(err, &pe) {
		pe.Message = Scrub(pe.Message, c.Secret)
		if errors.Is(pe.Kind, ErrRateLimited) && pe.RetryAfter == 0 {
			pe.RetryAfter = RetryAfter(a.Header)
		}
	}
	return err
}

// JSONCall is a call whose body, when there is one, is body in JSON, of
// contentType ("" for application/json: a merge patch names its own).
func (c *Caller) JSONCall(op, method, url string, body any, contentType string) (Call, error) {
	k := Call{Op: op, Method: method, URL: url}
	if body == nil {
		return k, nil
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return k, Errorf(ErrFailed, c.Provider, op, "encoding the request: %s", err)
	}
	if contentType == "" {
		contentType = "application/json"
	}
	k.Body, k.ContentType = bytes.NewReader(raw), contentType
	return k, nil
}

// JSON sends a call that must succeed and decodes its JSON answer into
// out; a nil out drops the answer.
func (c *Caller) JSON(ctx context.Context, k Call, out any) error {
	a, err := c.Send(ctx, k)
	if err != nil || out == nil {
		return err
	}
	return c.Decode(k.Op, a.Body, out)
}

// Decode reads a JSON answer into out; one that is not is the provider's
// failure, with the start of what it said.
func (c *Caller) Decode(op string, body []byte, out any) error {
	if err := json.Unmarshal(body, out); err != nil {
		return Errorf(ErrFailed, c.Provider, op, "malformed answer (%s): %q", err, Clip(string(body), 120))
	}
	return nil
}

// NewHTTPClient returns the HTTP client a provider sends its calls with:
// on NewTransport, and following no redirect, which would carry the
// credentials elsewhere.
func NewHTTPClient(p Policy) *http.Client {
	return &http.Client{
		Transport:     NewTransport(p),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
