package daytonatest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// A slow create holds up nothing else: other calls answer while it waits,
// and a caller that leaves before it is over creates nothing.
func TestCreateDelayHoldsOnlyTheCreate(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{CreateDelay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "POST", fake.URL()+"/sandbox", strings.NewReader(`{"target":"us"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+daytonatest.DefaultKey)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	left := make(chan error, 1)
	go func() {
		res, err := client.Do(req)
		if err == nil {
			res.Body.Close()
		}
		left <- err
	}()

	status, _, body := call(t, "GET", fake.URL()+"/sandbox", daytonatest.DefaultKey, "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	cancel()
	require.Error(t, <-left, "the create was still held when its caller left")
	_, _, body = call(t, "GET", fake.URL()+"/sandbox", daytonatest.DefaultKey, "")
	assert.Equal(t, 0, len(decode(t, body)["items"].([]any)), "a create whose caller left makes nothing")
}
