package provider

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A burst of calls to one provider leaves its connections open for the
// next burst, which then dials none: a burst of run starts reconnects as
// many instances at once.
func TestTheNextBurstFindsTheLastBurstsConnectionsOpen(t *testing.T) {
	const burst = 200 // far more than http.Transport keeps by default
	var dialled atomic.Int64
	arrived := make(chan struct{}, burst)
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release // every call of the burst in flight at once, each on its own connection
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialled.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	client := NewHTTPClient(Policy{})
	t.Cleanup(client.CloseIdleConnections)

	callAtOnce := func() {
		var wg sync.WaitGroup
		for range burst {
			wg.Go(func() {
				res, err := client.Get(srv.URL)
				if assert.NoError(t, err) {
					assert.NoError(t, res.Body.Close())
				}
			})
		}
		for range burst {
			<-arrived
		}
		for range burst { // one by one: closing release would leave none for the next burst
			release <- struct{}{}
		}
		wg.Wait()
	}

	callAtOnce()
	require.EqualValues(t, burst, dialled.Load(), "the first burst opens a connection for each call")
	callAtOnce()
	assert.EqualValues(t, burst, dialled.Load(), "the second burst dials no connection of its own")
}
