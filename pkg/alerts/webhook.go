package alerts

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/jobs"
)

// SignatureHeader carries a delivery's signature: t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<body>" under the webhook secret>, as Stripe signs.
const SignatureHeader = "Auxilia-Signature"

// IDHeader carries the alert's id: a receiver that sees it twice (an
// answer lost on the way back) has the alert already.
const IDHeader = "Auxilia-Alert-Id"

// Outbox is where alerts wait for their delivery.
type Outbox interface {
	Due(ctx context.Context, now time.Time, limit int) ([]auxilia.Alert, error)
	Delivered(ctx context.Context, id string, attempts int, at time.Time) error
	Retry(ctx context.Context, id string, attempts int, lastError string, next time.Time) error
	GiveUp(ctx context.Context, a auxilia.Alert, attempts int, lastError string) error
}

// Webhook delivers alerts to the operator's URL, signed, retried with
// backoff from the outbox (so across restarts), until MaxAttempts.
type Webhook struct {
	URL    string
	Secret string // "" sends no signature
	Outbox Outbox
	// Client posts (default: one with a 10 s timeout).
	Client *http.Client
	// MaxAttempts is how many attempts an alert gets (default 10); the
	// wait after attempt n is Backoff·2ⁿ⁻¹, at most an hour (default 30 s).
	MaxAttempts int
	Backoff     time.Duration
	Now         func() time.Time
}

// DeliveryReport says what a delivery pass did.
type DeliveryReport struct {
	Delivered, Retried, Failed int
}

// deliverBatch bounds the alerts one pass takes.
const deliverBatch = 50

func (w *Webhook) defaults() {
	if w.Client == nil {
		w.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if w.MaxAttempts <= 0 {
		w.MaxAttempts = 10
	}
	if w.Backoff <= 0 {
		w.Backoff = 30 * time.Second
	}
	if w.Now == nil {
		w.Now = time.Now
	}
}

// Deliver posts every alert due, once each.
func (w *Webhook) Deliver(ctx context.Context) (DeliveryReport, error) {
	w.defaults()
	var rep DeliveryReport
	due, err := w.Outbox.Due(ctx, w.Now().UTC(), deliverBatch)
	if err != nil {
		return rep, err
	}
	var errs []error
	for _, a := range due {
		if ctx.Err() != nil {
			break
		}
		attempts := a.Attempts + 1
		sendErr := w.post(ctx, a)
		switch {
		case sendErr == nil:
			err = w.Outbox.Delivered(ctx, a.ID, attempts, w.Now().UTC())
			rep.Delivered++
		case attempts >= w.MaxAttempts:
			err = w.Outbox.GiveUp(ctx, a, attempts, sendErr.Error())
			rep.Failed++
		default:
			err = w.Outbox.Retry(ctx, a.ID, attempts, sendErr.Error(), w.Now().UTC().Add(w.wait(attempts)))
			rep.Retried++
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return rep, errors.Join(errs...)
}

// wait is the pause after a failed attempt.
func (w *Webhook) wait(attempts int) time.Duration {
	d := w.Backoff
	for i := 1; i < attempts && d < time.Hour; i++ {
		d *= 2
	}
	return min(d, time.Hour)
}

// Payload is the JSON body of a delivery.
type Payload struct {
	ID        string           `json:"id"`
	Type      string           `json:"type"`
	Workspace PayloadWorkspace `json:"workspace"`
	// Subject is a quota (instances, instance_hours, threads_per_agent)
	// or cost_budget.
	Subject string  `json:"subject"`
	Level   int     `json:"level"`
	Used    float64 `json:"used"`
	Limit   float64 `json:"limit"`
	// Estimate is true for the cost budget: its use is estimated from the
	// operator's rates, not billed.
	Estimate  bool      `json:"estimate"`
	Detail    string    `json:"detail"`
	CreatedAt time.Time `json:"created_at"`
}

// PayloadWorkspace names the alert's workspace.
type PayloadWorkspace struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// body is the alert's JSON.
func body(a auxilia.Alert) ([]byte, error) {
	return json.Marshal(Payload{ID: a.ID, Type: "quota.alert", Workspace: PayloadWorkspace{ID: a.WorkspaceID, Name: a.WorkspaceName},
		Subject: string(a.Subject), Level: a.Level, Used: a.Used, Limit: a.Limit, Estimate: a.Subject == auxilia.AlertCostBudget,
		Detail: a.Detail, CreatedAt: a.CreatedAt.UTC()})
}

// Sign is the signature header's value of body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// post sends one alert; any answer but a 2xx is a failure. Its error names
// neither the URL (which may hold a token) nor the secret.
func (w *Webhook) post(ctx context.Context, a auxilia.Alert) error {
	b, err := body(a)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(b))
	if err != nil {
		return errors.New("the webhook URL cannot be requested")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "auxilia-alerts")
	req.Header.Set(IDHeader, a.ID)
	if w.Secret != "" {
		req.Header.Set(SignatureHeader, Sign(w.Secret, w.Now(), b))
	}
	resp, err := w.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("not delivered: %v", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("the webhook answered HTTP %d", resp.StatusCode)
	}
	return nil
}

// Job is the delivery as a background job, led by one replica at a time so
// that no alert is sent twice at once.
func (w *Webhook) Job(every time.Duration, log *slog.Logger) jobs.Job {
	return jobs.Job{Name: "alert-webhook", Every: every, Jitter: every / 10, Run: func(ctx context.Context) error {
		rep, err := w.Deliver(ctx)
		if rep.Retried > 0 || rep.Failed > 0 {
			log.Warn("alert webhook refused deliveries", "delivered", rep.Delivered, "retried", rep.Retried, "failed", rep.Failed)
		}
		return err
	}}
}
