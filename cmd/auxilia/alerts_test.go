package main_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server posts an alert to the operator's webhook, signed with the
// secret, and shows it delivered; neither the secret nor the URL's token
// reaches its logs (checked for every server the tests start).
func TestTheServerPostsAlertsToTheWebhook(t *testing.T) {
	const secret, hookToken = "whsec-binary-0123456789", "H00K-T0K3N-0123456789"
	noLeak(secret, hookToken)
	var (
		mu   sync.Mutex
		got  []map[string]any
		sigs []bool
	)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var p map[string]any
		_ = json.Unmarshal(body, &p)
		header := r.Header.Get("Auxilia-Signature")
		ts, sig, _ := strings.Cut(strings.TrimPrefix(header, "t="), ",v1=")
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		mu.Lock()
		defer mu.Unlock()
		got, sigs = append(got, p), append(sigs, hmac.Equal([]byte(sig), []byte(hex.EncodeToString(mac.Sum(nil)))))
		w.WriteHeader(http.StatusNoContent)
	}))
	defer hook.Close()
	fake, err := daytonatest.New(daytonatest.Options{Transition: 1})
	require.NoError(t, err)
	defer fake.Close()
	srv := instance(t, "AUXILIA_LOCAL_PROVIDER=off", "AUXILIA_QUOTA_INSTANCES=1",
		"AUXILIA_ALERT_WEBHOOK_URL="+hook.URL+"/hooks/"+hookToken, "AUXILIA_ALERT_WEBHOOK_SECRET="+secret)
	agent := bindNew(t, srv, map[string]any{"name": "Daytona", "provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey})
	status, body := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", body)

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == 1
	}, 30*time.Second, 100*time.Millisecond, "the alert is posted within a delivery pass")
	mu.Lock()
	assert.Equal(t, []bool{true}, sigs, "signed with the secret")
	assert.Equal(t, "instances", got[0]["subject"])
	assert.EqualValues(t, 100, got[0]["level"])
	assert.Equal(t, "default", got[0]["workspace"].(map[string]any)["name"])
	mu.Unlock()

	require.Eventually(t, func() bool {
		_, list := get(t, srv.URL+"/api/v1/alerts", adminToken)
		items, _ := list["items"].([]any)
		return len(items) == 1 && items[0].(map[string]any)["webhook"].(map[string]any)["state"] == "delivered"
	}, 10*time.Second, 100*time.Millisecond)
}
