package gatewaytest

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Counter sits in front of a gateway and counts the calls that pass, by
// method and route ("POST /sandboxes/{id}/snapshot").
type Counter struct {
	URL   string
	mu    sync.Mutex
	since map[string]int // since the last Take
	all   map[string]int
}

var sandboxPath = regexp.MustCompile(`^/sandboxes/[^/]+`)

// CountCalls starts a Counter in front of the gateway at gatewayURL; the
// test's end stops it.
func CountCalls(t *testing.T, gatewayURL string) *Counter {
	t.Helper()
	target, err := url.Parse(gatewayURL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // commands' output streams
	c := &Counter{since: map[string]int{}, all: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := r.Method + " " + sandboxPath.ReplaceAllString(r.URL.Path, "/sandboxes/{id}")
		c.mu.Lock()
		c.since[route]++
		c.all[route]++
		c.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

// Take returns the calls counted since the last Take.
func (c *Counter) Take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	calls := c.since
	c.since = map[string]int{}
	return calls
}

// Total is every call so far.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.all {
		n += k
	}
	return n
}

// Of is the calls of one route so far.
func (c *Counter) Of(route string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all[route]
}
