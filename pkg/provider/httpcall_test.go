package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const callSecret = "sk-live-0123456789abcdef"

// newCaller returns a caller for srv, carrying callSecret as a bearer token.
func newCaller(srv *httptest.Server) *Caller {
	return &Caller{
		Provider: "echo",
		HTTP:     NewHTTPClient(Policy{}),
		Secret:   callSecret,
		Auth:     func(h http.Header) { h.Set("Authorization", "Bearer "+callSecret) },
	}
}

func TestCallerSendsCredentialsUnlessTheCallGoesWithout(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization")+"|"+r.Header.Get("Accept")+"|"+r.Header.Get("X-Extra"))
	}))
	defer srv.Close()
	c := newCaller(srv)
	_, err := c.Send(context.Background(), Call{Op: "probe", Method: "GET", URL: srv.URL, Header: http.Header{"X-Extra": {"1"}}})
	require.NoError(t, err)
	_, err = c.Send(context.Background(), Call{Op: "health", Method: "GET", URL: srv.URL, NoAuth: true, Accept: "*/*"})
	require.NoError(t, err)
	assert.Equal(t, []string{"Bearer " + callSecret + "|application/json|1", "|*/*|"}, seen)
}

func TestCallerWordsARefusalWithTheProvidersHookScrubbedAndClipped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, "bad key "+callSecret+" "+strings.Repeat("x", 2000))
	}))
	defer srv.Close()
	c := newCaller(srv)
	var status int
	c.Refused = func(op string, a Answer) error {
		status = a.Status
		return Errorf(ErrUnauthorized, "echo", op, "%s", a.Body)
	}
	_, err := c.Send(context.Background(), Call{Op: "probe", Method: "GET", URL: srv.URL})
	require.ErrorIs(t, err, ErrUnauthorized)
	assert.Equal(t, http.StatusForbidden, status)
	assert.NotContains(t, err.Error(), callSecret)
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.LessOrEqual(t, len(pe.Message), MaxMessage+len("…"), "the provider's words are clipped")
	assert.True(t, strings.HasPrefix(pe.Message, "bad key ••••"), pe.Message)
}

func TestCallerWithoutAHookWordsARefusalByItsStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream down", http.StatusBadGateway)
	}))
	defer srv.Close()
	err := newCaller(srv).JSON(context.Background(), Call{Op: "list", Method: "GET", URL: srv.URL}, nil)
	require.ErrorIs(t, err, ErrFailed)
	assert.Equal(t, "echo list: the provider failed: 502 Bad Gateway: upstream down", err.Error())
}

func TestCallerDoLeavesTheStatusToTheCaller(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = io.WriteString(w, `{"message":"slow down"}`)
	}))
	defer srv.Close()
	a, err := newCaller(srv).Do(context.Background(), Call{Op: "list", Method: "GET", URL: srv.URL})
	require.NoError(t, err)
	assert.Equal(t, http.StatusTooManyRequests, a.Status)
	assert.Equal(t, `{"message":"slow down"}`, string(a.Body))
	assert.Equal(t, 7*time.Second, RetryAfter(a.Header))
}

func TestCallerBoundsWhatItReadsWhole(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/refused" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		_, _ = io.WriteString(w, strings.Repeat("y", 200<<10))
	}))
	defer srv.Close()
	c := newCaller(srv)
	c.MaxAnswer = 100 << 10
	_, err := c.Do(context.Background(), Call{Op: "read", Method: "GET", URL: srv.URL})
	require.ErrorIs(t, err, ErrFailed)
	assert.Contains(t, err.Error(), "larger than 102400 bytes")

	a, err := c.Do(context.Background(), Call{Op: "read", Method: "GET", URL: srv.URL + "/refused"})
	require.NoError(t, err)
	assert.Len(t, a.Body, maxRefusal, "an error answer is cut to what is worth reading")
}

func TestCallerSortsCallsThatGetNoAnswer(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	c := newCaller(srv)

	_, err := c.Do(context.Background(), Call{Op: "get", Method: "GET", URL: srv.URL + "/?key=" + callSecret, Timeout: 50 * time.Millisecond})
	require.ErrorIs(t, err, ErrTimeout)
	assert.NotContains(t, err.Error(), callSecret, "the URL is left out of the words")

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = c.Do(ctx, Call{Op: "get", Method: "GET", URL: srv.URL})
	require.ErrorIs(t, err, context.Canceled, "the caller leaving is no fault of the provider's")
	var pe *Error
	assert.False(t, errors.As(err, &pe))

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	_, err = c.Do(context.Background(), Call{Op: "get", Method: "GET", URL: closed.URL})
	require.ErrorIs(t, err, ErrUnreachable)
}

func TestCallerStreamsASuccessAndWordsAnAnswerCutShort(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		_, _ = io.WriteString(w, "only part")
	}))
	defer srv.Close()
	a, err := newCaller(srv).Send(context.Background(), Call{Op: "read file", Method: "GET", URL: srv.URL, Stream: true})
	require.NoError(t, err)
	require.NotNil(t, a.Stream)
	defer a.Stream.Close()
	got, err := io.ReadAll(a.Stream)
	assert.Equal(t, "only part", string(got))
	require.ErrorIs(t, err, ErrUnreachable)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "a reader can tell an answer cut short")
}

func TestCallerRefusesMalformedJSONWithAClippedExcerpt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"id": "trunc`+strings.Repeat("z", 500))
	}))
	defer srv.Close()
	var out struct{ ID string }
	err := newCaller(srv).JSON(context.Background(), Call{Op: "create", Method: "POST", URL: srv.URL}, &out)
	require.ErrorIs(t, err, ErrFailed)
	assert.Contains(t, err.Error(), "malformed answer")
	assert.Less(t, len(err.Error()), 300)
}

func TestCallerFollowsNoRedirect(t *testing.T) {
	var elsewhere bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere = true }))
	defer other.Close()
	srv := httptest.NewServer(http.RedirectHandler(other.URL, http.StatusFound))
	defer srv.Close()
	a, err := newCaller(srv).Do(context.Background(), Call{Op: "get", Method: "GET", URL: srv.URL})
	require.NoError(t, err)
	assert.Equal(t, http.StatusFound, a.Status)
	assert.False(t, elsewhere, "the credentials stay with their origin")
}

func TestAProvidersRateLimitKeepsItsRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte("slow down"))
	}))
	defer srv.Close()
	c := &Caller{Provider: "acme", HTTP: srv.Client()}
	_, err := c.Send(context.Background(), Call{Op: "create", Method: http.MethodPost, URL: srv.URL})
	var pe *Error
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.Equal(t, time.Hour, pe.RetryAfter)
	assert.Contains(t, pe.Message, "slow down")
	assert.Equal(t, "rate_limited", Outcome(err), "counted as such")
}

// A JSON call carries its body as JSON, of the type asked for, and
// reaches the server as written.
func TestCallerSendsAJSONBody(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen = append(seen, r.Method+" "+r.Header.Get("Content-Type")+" "+string(body))
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	c := newCaller(srv)
	var out struct{ OK bool }
	for _, k := range []struct {
		method, contentType string
		body                any
	}{
		{http.MethodGet, "", nil},
		{http.MethodPost, "", map[string]int{"n": 1}},
		{http.MethodPatch, "application/merge-patch+json", map[string]any{"spec": nil}},
	} {
		call, err := c.JSONCall("op", k.method, srv.URL, k.body, k.contentType)
		require.NoError(t, err)
		require.NoError(t, c.JSON(context.Background(), call, &out))
		assert.True(t, out.OK)
	}
	assert.Equal(t, []string{"GET  ", `POST application/json {"n":1}`,
		`PATCH application/merge-patch+json {"spec":null}`}, seen)

	_, err := c.JSONCall("op", http.MethodPost, srv.URL, func() {}, "")
	assert.ErrorIs(t, err, ErrFailed, "what cannot be written as JSON is never sent")
}
