package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// AlertList lists a workspace's alerts.
type AlertList interface {
	List(ctx context.Context, workspaceID string, limit int) ([]auxilia.Alert, error)
}

type alertsHandler struct{ alerts AlertList }

func (h alertsHandler) routes(g routes) {
	g.GET("/alerts", h.list, adminOnly)
}

// alertView is one alert: a quota's or the cost budget's use reached 80 or
// 100 % of its limit, announced once, and its delivery to the operator's
// webhook.
type alertView struct {
	ID string `json:"id" format:"uuid"`
	// Subject is the quota, or cost_budget.
	Subject string `json:"subject" enums:"instances,instance_hours,threads_per_agent,cost_budget"`
	Level   int    `json:"level" enums:"80,100"`
	// Used and Limit are the use and the limit when the level was reached;
	// for cost_budget, an estimated cost and the budget, in the rates' currency.
	Used      float64             `json:"used" example:"8"`
	Limit     float64             `json:"limit" example:"10"`
	Detail    string              `json:"detail" example:"instance_hours quota 80% used: 8 of 10"`
	CreatedAt time.Time           `json:"created_at" format:"date-time"`
	Webhook   webhookDeliveryView `json:"webhook"`
} //@name Alert

// webhookDeliveryView is how the alert's delivery to the webhook went.
type webhookDeliveryView struct {
	// State is off where no webhook is set, pending until the webhook takes
	// it (retried with backoff), delivered, or failed once every attempt was refused.
	State     string `json:"state" enums:"off,pending,delivered,failed"`
	Attempts  int    `json:"attempts"`
	LastError string `json:"last_error" example:"the webhook answered HTTP 500"`
	// NextAttemptAt is when a pending delivery is tried again.
	NextAttemptAt *time.Time `json:"next_attempt_at" format:"date-time" extensions:"x-nullable"`
	DeliveredAt   *time.Time `json:"delivered_at" format:"date-time" extensions:"x-nullable"`
} //@name AlertWebhookDelivery

type alertListView struct {
	Items []alertView `json:"items"`
} //@name AlertList

// maxAlerts bounds the alerts one listing shows.
const maxAlerts = 200

// list lists the workspace's latest alerts.
//
//	@Summary		The workspace's latest alerts
//	@Description	Each crossing of 80 or 100 % of a quota or of the estimated-cost budget, newest first, with its delivery to the operator's webhook (AUXILIA_ALERT_WEBHOOK_URL): its state, attempts and last error. The cost budget alerts; it never refuses a start.
//	@Tags			workspace
//	@Produce		json
//	@Security		BearerAuth
//	@Param			limit	query		int	false	"How many alerts"	minimum(1)	maximum(200)	default(50)
//	@Success		200		{object}	alertListView
//	@Failure		401,403,422	{object}	Problem
//	@ID				listAlerts
//	@Router			/api/v1/alerts [get]
func (h alertsHandler) list(c echo.Context) error {
	limit := 50
	if v := c.QueryParam("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxAlerts {
			var fe auxilia.FieldErrors
			fe.Add("limit", "must be a whole number from 1 to %d", maxAlerts)
			return fe.Err()
		}
		limit = n
	}
	got, err := h.alerts.List(c.Request().Context(), actor(c).Workspace.ID, limit)
	if err != nil {
		return err
	}
	out := alertListView{Items: make([]alertView, 0, len(got))}
	for _, a := range got {
		out.Items = append(out.Items, alertView{ID: a.ID, Subject: string(a.Subject), Level: a.Level, Used: a.Used, Limit: a.Limit,
			Detail: a.Detail, CreatedAt: a.CreatedAt, Webhook: webhookDeliveryView{State: string(a.Delivery), Attempts: a.Attempts,
				LastError: a.LastError, NextAttemptAt: a.NextAttempt, DeliveredAt: a.DeliveredAt}})
	}
	return c.JSON(http.StatusOK, out)
}
