package auxilia

import (
	"fmt"
	"time"
)

// AlertSubject names what an alert is about: one of the quotas, or the
// workspace's estimated-cost budget.
type AlertSubject string

// AlertCostBudget is the subject of the alerts of the estimated-cost budget.
const AlertCostBudget AlertSubject = "cost_budget"

// AlertSubjects lists every subject, in the order they are shown.
func AlertSubjects() []AlertSubject {
	out := make([]AlertSubject, 0, 4)
	for _, q := range QuotaNames() {
		out = append(out, AlertSubject(q))
	}
	return append(out, AlertCostBudget)
}

// AlertDelivery is how far an alert's webhook delivery went.
type AlertDelivery string

// An alert's delivery is off where no webhook is set, pending until the
// webhook took it, delivered, or failed once every attempt was refused.
const (
	AlertDeliveryOff       AlertDelivery = "off"
	AlertDeliveryPending   AlertDelivery = "pending"
	AlertDeliveryDelivered AlertDelivery = "delivered"
	AlertDeliveryFailed    AlertDelivery = "failed"
)

// Alert is one crossing of an alert level (80 or 100 % of a limit),
// announced once, with its webhook delivery.
type Alert struct {
	ID            string
	WorkspaceID   string
	WorkspaceName string
	Subject       AlertSubject
	Level         int
	// Used and Limit are the use and the limit when the level was reached:
	// whole numbers for quotas, an estimated amount for the cost budget.
	Used, Limit float64
	Detail      string
	CreatedAt   time.Time
	Delivery    AlertDelivery
	Attempts    int
	LastError   string // why the last attempt failed; never a secret
	NextAttempt *time.Time
	DeliveredAt *time.Time
}

// AlertReached is an alert level a use reached, to be recorded (and
// announced if it rose).
type AlertReached struct {
	Subject     AlertSubject
	Level       int
	Used, Limit float64
	Currency    string // the cost budget's
}

// Detail is the sentence the audit entry and the webhook carry.
func (r AlertReached) Detail() string {
	if r.Subject == AlertCostBudget {
		return fmt.Sprintf("cost budget %d%% used: an estimated %.2f of %.2f %s this month", r.Level, r.Used, r.Limit, r.Currency)
	}
	return fmt.Sprintf("%s quota %d%% used: %g of %g", r.Subject, r.Level, r.Used, r.Limit)
}

// CostLevel is the highest alert level an estimated cost reaches of a
// budget (0 for none).
func CostLevel(cost, budget float64) int {
	level := 0
	for _, l := range QuotaAlertLevels {
		if budget > 0 && cost*100 >= float64(l)*budget {
			level = l
		}
	}
	return level
}

// Budget is a workspace's estimated-cost budget for the calendar month and
// its use. It alerts; it refuses nothing.
type Budget struct {
	// Limit is the budget in force (0: none); Default tells whether it is
	// the server's default rather than the workspace's own.
	Limit   float64
	Default bool
	// Cost is the estimated cost of this month so far (nil where the
	// operator gave no rates); Currency is the rates' currency.
	Cost     *float64
	Currency string
}

// Level is the alert level the estimated cost reached.
func (b Budget) Level() int {
	if b.Cost == nil {
		return 0
	}
	return CostLevel(*b.Cost, b.Limit)
}
