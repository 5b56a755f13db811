package alerts_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/alerts"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const secret = "whsec-0123456789abcdef"

// receiver is a webhook receiver on loopback that verifies each delivery's
// signature as the docs tell receivers to, and answers with the statuses
// given, one per delivery (the last one again once they run out).
type receiver struct {
	mu       sync.Mutex
	statuses []int
	got      []alerts.Payload
	verified []bool
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var p alerts.Payload
	_ = json.Unmarshal(body, &p)
	ok := verify(req.Header.Get(alerts.SignatureHeader), body) && req.Header.Get(alerts.IDHeader) == p.ID
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got, r.verified = append(r.got, p), append(r.verified, ok)
	status := r.statuses[0]
	if len(r.statuses) > 1 {
		r.statuses = r.statuses[1:]
	}
	w.WriteHeader(status)
}

// verify checks a signature header as a receiver does (the docs' recipe),
// without the sender's code: t=…,v1=… where v1 is the hex HMAC-SHA256 of
// "t.body" under the shared secret, and t is recent.
func verify(header string, body []byte) bool {
	var ts, sig string
	for _, part := range strings.Split(header, ",") {
		if v, ok := strings.CutPrefix(part, "t="); ok {
			ts = v
		}
		if v, ok := strings.CutPrefix(part, "v1="); ok {
			sig = v
		}
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(secs, 0)).Abs() > 5*time.Minute {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(sig), []byte(want))
}

func newOutbox(t *testing.T, db *store.DB) (auxilia.Workspace, store.SystemAlerts) {
	t.Helper()
	ws, err := db.System("test").Workspaces().Ensure(context.Background(), "acme")
	require.NoError(t, err)
	db.SetAlertWebhook(true)
	return ws, db.System("test").Alerts()
}

func reach(t *testing.T, out store.SystemAlerts, wsID string, subject auxilia.AlertSubject) {
	t.Helper()
	require.NoError(t, out.Record(context.Background(), wsID, []auxilia.AlertReached{{Subject: subject, Level: 80, Used: 8, Limit: 10}}))
}

// An alert is posted signed; a 500 is retried after its backoff, and the
// failed attempt shows in the alert meanwhile.
func TestWebhookRetriesAfterA500(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, out := newOutbox(t, db)
		reach(t, out, ws.ID, auxilia.AlertSubject(auxilia.QuotaInstanceHours))
		rcv := &receiver{statuses: []int{500, 204}}
		srv := httptest.NewServer(rcv)
		defer srv.Close()
		now := time.Now()
		w := &alerts.Webhook{URL: srv.URL + "/hooks/T0K3N", Secret: secret, Outbox: out, Backoff: time.Minute,
			Now: func() time.Time { return now }}

		rep, err := w.Deliver(ctx)
		require.NoError(t, err)
		assert.Equal(t, alerts.DeliveryReport{Retried: 1}, rep)
		list, err := db.In(ws.ID).Alerts().List(ctx, 10)
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, auxilia.AlertDeliveryPending, list[0].Delivery)
		assert.Equal(t, 1, list[0].Attempts)
		assert.Equal(t, "the webhook answered HTTP 500", list[0].LastError)
		require.NotNil(t, list[0].NextAttempt)
		assert.WithinDuration(t, now.Add(time.Minute), *list[0].NextAttempt, time.Second)

		rep, err = w.Deliver(ctx)
		require.NoError(t, err)
		assert.Equal(t, alerts.DeliveryReport{}, rep, "not before its backoff")

		now = now.Add(61 * time.Second)
		rep, err = w.Deliver(ctx)
		require.NoError(t, err)
		assert.Equal(t, alerts.DeliveryReport{Delivered: 1}, rep)
		list, err = db.In(ws.ID).Alerts().List(ctx, 10)
		require.NoError(t, err)
		assert.Equal(t, auxilia.AlertDeliveryDelivered, list[0].Delivery)
		assert.Equal(t, 2, list[0].Attempts)

		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		require.Len(t, rcv.got, 2)
		assert.Equal(t, []bool{true, true}, rcv.verified, "every delivery is signed with the secret")
		p := rcv.got[1]
		assert.Equal(t, list[0].ID, p.ID)
		assert.Equal(t, "acme", p.Workspace.Name)
		assert.Equal(t, "instance_hours", p.Subject)
		assert.Equal(t, 80, p.Level)
		assert.Equal(t, 8.0, p.Used)
		assert.Equal(t, 10.0, p.Limit)
		assert.False(t, p.Estimate)
		rep, err = w.Deliver(ctx)
		require.NoError(t, err)
		assert.Equal(t, alerts.DeliveryReport{}, rep, "a delivered alert is not sent again")
	})
}

// A webhook that never takes the alert is given up on after the last
// attempt: the alert says failed, with the last error, and the audit log
// says so too; neither names the secret nor the URL's path.
func TestWebhookGivesUpVisibly(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, out := newOutbox(t, db)
		reach(t, out, ws.ID, auxilia.AlertCostBudget)
		rcv := &receiver{statuses: []int{503}}
		srv := httptest.NewServer(rcv)
		defer srv.Close()
		now := time.Now()
		w := &alerts.Webhook{URL: srv.URL + "/hooks/T0K3N", Secret: secret, Outbox: out, MaxAttempts: 3, Backoff: time.Second,
			Now: func() time.Time { return now }}
		for range 3 {
			_, err := w.Deliver(ctx)
			require.NoError(t, err)
			now = now.Add(time.Hour)
		}
		list, err := db.In(ws.ID).Alerts().List(ctx, 10)
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, auxilia.AlertDeliveryFailed, list[0].Delivery)
		assert.Equal(t, 3, list[0].Attempts)
		assert.Nil(t, list[0].NextAttempt)
		page, err := db.In(ws.ID).Audit().List(ctx, auxilia.AuditFilter{Action: "alert.failed"}, auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		assert.Contains(t, page.Items[0].Detail, "HTTP 503")
		for _, s := range []string{list[0].LastError, page.Items[0].Detail} {
			assert.NotContains(t, s, secret)
			assert.NotContains(t, s, "T0K3N")
		}
		rcv.mu.Lock()
		assert.Len(t, rcv.got, 3)
		assert.True(t, rcv.got[0].Estimate, "a cost alert says it is an estimate")
		rcv.mu.Unlock()
		_, err = w.Deliver(ctx)
		require.NoError(t, err)
		rcv.mu.Lock()
		assert.Len(t, rcv.got, 3, "no attempt after giving up")
		rcv.mu.Unlock()
	})
}

// A receiver that cannot be reached is a failed attempt whose error names
// neither the URL's path nor its query.
func TestWebhookUnreachable(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, out := newOutbox(t, db)
		reach(t, out, ws.ID, auxilia.AlertSubject(auxilia.QuotaInstances))
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		w := &alerts.Webhook{URL: url + "/hooks/T0K3N?key=S3CR3T", Secret: secret, Outbox: out}
		rep, err := w.Deliver(ctx)
		require.NoError(t, err)
		assert.Equal(t, alerts.DeliveryReport{Retried: 1}, rep)
		list, err := db.In(ws.ID).Alerts().List(ctx, 10)
		require.NoError(t, err)
		assert.Contains(t, list[0].LastError, "not delivered")
		assert.NotContains(t, list[0].LastError, "T0K3N")
		assert.NotContains(t, list[0].LastError, "S3CR3T")
	})
}
