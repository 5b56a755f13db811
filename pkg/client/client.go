package client

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// API is the generated client, each answer read into its typed fields.
type API = ClientWithResponses

// Options tune New. The zero value is usable.
type Options struct {
	// HTTP sends the requests; http.DefaultClient's transport when nil.
	HTTP *http.Client
	// Attempts is how many times a request that may be retried is sent at
	// most (3 when zero; 1 retries nothing).
	Attempts int
	// Backoff is the wait before the retry after attempt n (from 1), unless
	// the server said how long with Retry-After. 200ms·2ⁿ⁻¹ when nil.
	Backoff func(n int) time.Duration
}

// New returns a client of the server at baseURL (such as
// http://localhost:8080) that sends token as a bearer token.
//
// A create (a POST the server makes once per Idempotency-Key: agents,
// runs, sandboxes, tokens) gets a fresh key unless the caller gave one.
//
// A request is sent again when it got no answer or a 429, 502, 503 or 504
// (after Retry-After, in seconds or as a date, when the server gave one,
// unless that is longer than a minute: such an answer is the caller's),
// if sending it twice cannot do a thing twice: GET, HEAD, DELETE, a PUT
// that replaces (not a file written with overwrite=false, which a second
// time would find the first's file), and POST or PATCH only with an
// Idempotency-Key, which makes the server give the first answer again.
// Each wait is lengthened by a random quarter at most, so that clients
// refused together do not come back together.
func New(baseURL, token string, opts Options) (*API, error) {
	if token == "" {
		return nil, fmt.Errorf("client: no token")
	}
	base := http.DefaultTransport
	httpClient := &http.Client{}
	if opts.HTTP != nil {
		*httpClient = *opts.HTTP
		if opts.HTTP.Transport != nil {
			base = opts.HTTP.Transport
		}
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 3
	}
	if opts.Backoff == nil {
		opts.Backoff = func(n int) time.Duration { return 200 * time.Millisecond << (n - 1) }
	}
	httpClient.Transport = &retrying{next: base, attempts: opts.Attempts, backoff: opts.Backoff}
	baseURL = strings.TrimRight(baseURL, "/")
	server, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: base URL: %w", err)
	}
	headers := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		if req.Header.Get("Idempotency-Key") == "" && isCreate(req, server.Path) {
			req.Header.Set("Idempotency-Key", uuid.NewString())
		}
		return nil
	}
	return NewClientWithResponses(baseURL, WithHTTPClient(httpClient), WithRequestEditorFn(headers))
}

// creates are the paths of the POSTs that take an Idempotency-Key.
var creates = []string{"/api/v1/agents", "/api/v1/agents/*/threads/*/runs", "/api/v1/sandboxes", "/api/v1/tokens"}

// isCreate reports whether req is a POST to one of creates, below basePath.
func isCreate(req *http.Request, basePath string) bool {
	if req.Method != http.MethodPost {
		return false
	}
	p := strings.TrimPrefix(req.URL.Path, strings.TrimRight(basePath, "/"))
	for _, c := range creates {
		if ok, _ := path.Match(c, p); ok {
			return true
		}
	}
	return false
}

// NewKey returns a fresh Idempotency-Key for a create's params, for a
// caller that keeps it to send the create again itself (New's client gives
// each create a key of its own otherwise).
func NewKey() *string {
	key := uuid.NewString()
	return &key
}

// maxRetryWait is the longest the client waits before sending a request
// again; an answer that asks for longer is returned as it is.
const maxRetryWait = time.Minute

// retrying sends a request again when that is safe and worth it.
type retrying struct {
	next     http.RoundTripper
	attempts int
	backoff  func(n int) time.Duration
}

func (r *retrying) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.roundTrip(req)
	if resp != nil {
		inSeconds(resp.Header)
	}
	return resp, err
}

// inSeconds rewrites a Retry-After date as the seconds until it, the form
// the generated answers read.
func inSeconds(h http.Header) {
	v := h.Get("Retry-After")
	if _, err := strconv.Atoi(v); err == nil || v == "" {
		return
	}
	if wait, ok := retryAfter(v, time.Now()); ok {
		h.Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
	}
}

func (r *retrying) roundTrip(req *http.Request) (*http.Response, error) {
	if !safeToRepeat(req) || (req.Body != nil && req.GetBody == nil) {
		return r.next.RoundTrip(req)
	}
	for n := 1; ; n++ {
		attempt := req.Clone(req.Context())
		if req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			attempt.Body = body
		}
		resp, err := r.next.RoundTrip(attempt)
		if n == r.attempts || !worthRetrying(resp, err) {
			return resp, err
		}
		wait := r.backoff(n)
		if resp != nil {
			if after, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
				wait = after
			}
			if wait > maxRetryWait {
				return resp, nil // a provider's hour-long rate limit, say: not worth blocking on
			}
			resp.Body.Close()
		}
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(jittered(wait)):
		}
	}
}

// safeToRepeat reports whether sending req twice does what sending it
// once does.
func safeToRepeat(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
		return true
	case http.MethodPut:
		// A file written without overwrite=true is refused the second time,
		// as the first wrote it: the caller would see a conflict for a success.
		return !strings.HasSuffix(req.URL.Path, "/files") || req.URL.Query().Get("overwrite") == "true"
	}
	return req.Header.Get("Idempotency-Key") != ""
}

// retryAfter reads a Retry-After header: a number of seconds, or an HTTP
// date (a date past is no wait).
func retryAfter(header string, now time.Time) (time.Duration, bool) {
	if header == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(header); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	when, err := http.ParseTime(header)
	if err != nil {
		return 0, false
	}
	return max(when.Sub(now), 0), true
}

// jittered lengthens d by a random part of up to a quarter of it.
func jittered(d time.Duration) time.Duration {
	if d < 4 {
		return d
	}
	return d + rand.N(d/4)
}

func worthRetrying(resp *http.Response, err error) bool {
	if err != nil {
		return true
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}
