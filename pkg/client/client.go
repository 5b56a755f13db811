package client

import (
	"context"
	"fmt"
	"net/http"
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
// A request is sent again when it got no answer or a 429, 502, 503 or 504
// (after Retry-After when the server gave one, unless that is longer than
// a minute: such an answer is the caller's), if sending it twice cannot
// do a thing twice: GET, HEAD, PUT and DELETE, and POST or PATCH only with
// an Idempotency-Key, which makes the server give the first answer again.
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
	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
	return NewClientWithResponses(strings.TrimRight(baseURL, "/"), WithHTTPClient(httpClient), WithRequestEditorFn(bearer))
}

// NewKey returns a fresh Idempotency-Key for a create's params: the create
// may then be retried, and the server makes it once.
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
	safe := req.Method == http.MethodGet || req.Method == http.MethodHead || req.Method == http.MethodPut ||
		req.Method == http.MethodDelete || req.Header.Get("Idempotency-Key") != ""
	if !safe || (req.Body != nil && req.GetBody == nil) {
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
			if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s >= 0 {
				wait = time.Duration(s) * time.Second
			}
			if wait > maxRetryWait {
				return resp, nil // a provider's hour-long rate limit, say: not worth blocking on
			}
			resp.Body.Close()
		}
		select {
		case <-req.Context().Done():
			return nil, req.Context().Err()
		case <-time.After(wait):
		}
	}
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
