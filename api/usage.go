package api

import (
	"context"
	"encoding/csv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/usage"
	"github.com/labstack/echo/v4"
)

// UsageReporter reports what a workspace's instances used.
type UsageReporter interface {
	Report(ctx context.Context, workspaceID string, q usage.Query) (usage.Answer, error)
}

type usageHandler struct {
	svc UsageReporter
	now func() time.Time
}

func (h usageHandler) routes(g routes) {
	g.GET("/usage", h.report)
}

type usageRowView struct {
	PeriodStart       time.Time `json:"period_start" format:"date-time"`
	PeriodEnd         time.Time `json:"period_end" format:"date-time"`
	Key               string    `json:"key" example:"0b9f6c2e-5d1a-4c6e-9c1f-3f5c2a7d9e10"`
	Name              string    `json:"name" example:"Python"`
	RunningSeconds    float64   `json:"running_seconds" example:"3600"`
	PausedSeconds     float64   `json:"paused_seconds" example:"600"`
	InstancesCreated  int       `json:"instances_created"`
	InstancesFailed   int       `json:"instances_failed"`
	InstancesReplaced int       `json:"instances_replaced"`
	Commands          int       `json:"commands" example:"42"`
	CommandSeconds    float64   `json:"command_seconds" example:"95.5"`
	TerminalSeconds   float64   `json:"terminal_seconds" example:"1200"`
	KeptByteDays      float64   `json:"kept_byte_days" example:"1073741824"`
	EstimatedCost     *float64  `json:"estimated_cost" extensions:"x-nullable"`
} //@name UsageRow

type usageView struct {
	From        time.Time      `json:"from" format:"date-time"`
	To          time.Time      `json:"to" format:"date-time"`
	GroupBy     string         `json:"group_by" enums:",sandbox,agent,thread,provider"`
	Granularity string         `json:"granularity" enums:"hour,day"`
	Currency    string         `json:"currency" example:"USD"`
	CostNote    string         `json:"cost_note"`
	Rows        []usageRowView `json:"rows"`
} //@name Usage

// report answers the workspace's usage.
//
//	@Summary		The workspace's usage
//	@Description	Instance-seconds running (being created included) and paused, and the instances created, failed (let go before they were live) and replaced (found gone at their provider), per hour or day (UTC), metered as each instance's lifecycle changed. Also the commands the execute tool ran (`commands`, counted in the period they began, and `command_seconds`, from sending to answer), `terminal_seconds` (interactive terminals from opening to closing; one whose server died counts until it was last seen, which an open terminal is every 20 seconds), and `kept_byte_days` (kept files' bytes, as their provider reported them, times the days from their keeping to their deletion). Admins may split it by sandbox, agent, thread or provider; members see their workspace's totals. A pool's instance belongs to its sandbox until a thread claims it (its agent and thread are then empty). `estimated_cost` is an estimate from the operator's rates per provider, per instance-hour and per GiB-day kept (null where a provider in the row has none), in `currency`; the provider's own bill is what is owed. With `Accept: text/csv` the same rows come as CSV.
//	@Tags			usage
//	@Produce		json,text/csv
//	@Security		BearerAuth
//	@Param			from		query		string	false	"Start (RFC 3339); default: the start of the current UTC month (hour: 24 hours before to)"	format(date-time)
//	@Param			to			query		string	false	"End, excluded (RFC 3339); default: now"	format(date-time)
//	@Param			group_by	query		string	false	"Split the rows by this (admins only)"	Enums(sandbox, agent, thread, provider)
//	@Param			granularity	query		string	false	"Length of each row's period"	Enums(hour, day)	default(day)
//	@Success		200			{object}	usageView
//	@Failure		400,401,403	{object}	Problem
//	@ID				getUsage
//	@Router			/api/v1/usage [get]
func (h usageHandler) report(c echo.Context) error {
	q, err := h.query(c)
	if err != nil {
		return err
	}
	if q.GroupBy != usage.Total && actor(c).Role != auxilia.RoleAdmin {
		return auxilia.Errorf(auxilia.CodeForbidden, "Only an admin token may split usage by %s; a member sees the workspace's totals (leave group_by out).", q.GroupBy)
	}
	ans, err := h.svc.Report(c.Request().Context(), actor(c).Workspace.ID, q)
	if err != nil {
		return err
	}
	rows := make([]usageRowView, len(ans.Rows))
	for i, r := range ans.Rows {
		rows[i] = usageRowView{PeriodStart: r.PeriodStart, PeriodEnd: r.PeriodEnd, Key: r.Key, Name: r.Name,
			RunningSeconds: r.RunningSeconds, PausedSeconds: r.PausedSeconds, InstancesCreated: r.Created,
			InstancesFailed: r.Failed, InstancesReplaced: r.Replaced, Commands: r.Commands, CommandSeconds: r.CommandSeconds,
			TerminalSeconds: r.TerminalSeconds, KeptByteDays: r.KeptByteDays(), EstimatedCost: r.EstimatedCost}
	}
	if wantsCSV(c) {
		return writeUsageCSV(c, q, ans.Currency, rows)
	}
	note := "The operator gave no rates: no cost is estimated."
	if ans.Estimated {
		note = "estimated_cost is an estimate from the operator's rates, in " + ans.Currency + "; the provider's bill is what is owed."
	}
	return c.JSON(http.StatusOK, usageView{From: q.From, To: q.To, GroupBy: string(q.GroupBy), Granularity: string(q.Granularity),
		Currency: ans.Currency, CostNote: note, Rows: rows})
}

// query reads the report's parameters, naming every bad one.
func (h usageHandler) query(c echo.Context) (usage.Query, error) {
	var fe auxilia.FieldErrors
	oneOf := func(name string, allowed []string) string {
		v := c.QueryParam(name)
		if v != "" && !slices.Contains(allowed, v) {
			fe.Add(name, "must be one of %s", strings.Join(allowed, ", "))
		}
		return v
	}
	instant := func(name string) time.Time {
		v := c.QueryParam(name)
		if v == "" {
			return time.Time{}
		}
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			fe.Add(name, "must be a date-time as RFC 3339 writes it, such as 2026-01-02T15:04:05Z")
			return time.Time{}
		}
		return t.UTC()
	}
	q := usage.Query{GroupBy: usage.GroupBy(oneOf("group_by", usage.Groupings)),
		Granularity: usage.Granularity(oneOf("granularity", usage.Granularities)), From: instant("from"), To: instant("to")}
	if q.Granularity == "" || fe.Has("granularity") {
		q.Granularity = usage.Day
	}
	if q.To.IsZero() && !fe.Has("to") {
		q.To = h.now().UTC()
	}
	if q.From.IsZero() && !fe.Has("from") && !q.To.IsZero() {
		if q.Granularity == usage.Hour {
			q.From = q.To.Add(-24 * time.Hour)
		} else {
			q.From = time.Date(q.To.Year(), q.To.Month(), 1, 0, 0, 0, 0, time.UTC)
			if !q.From.Before(q.To) {
				q.From = q.From.AddDate(0, -1, 0)
			}
		}
	}
	switch {
	case q.From.IsZero() || q.To.IsZero():
	case !q.To.After(q.From):
		fe.Add("to", "must be later than from")
	case q.To.Sub(q.From) > q.Granularity.MaxSpan():
		fe.Add("from", "must be at most %d days before to with granularity %s", int(q.Granularity.MaxSpan()/(24*time.Hour)), q.Granularity)
	}
	if len(fe) > 0 {
		return q, &auxilia.Error{Code: auxilia.CodeMalformed, Message: "The usage query has bad parameters.", Fields: fe}
	}
	return q, nil
}

// wantsCSV tells whether the caller prefers CSV to JSON.
func wantsCSV(c echo.Context) bool {
	weights := acceptWeights(c.Request().Header.Get(echo.HeaderAccept))
	w, named := weights["text/csv"]
	return named && w > 0 && w >= weightOf(weights, "application/json")
}

// usageCSVHeader names the CSV's columns: the JSON rows' fields, with the
// report's grouping and currency on every line.
var usageCSVHeader = []string{"period_start", "period_end", "group_by", "key", "name", "running_seconds", "paused_seconds",
	"instances_created", "instances_failed", "instances_replaced", "commands", "command_seconds", "terminal_seconds", "kept_byte_days",
	"estimated_cost", "currency"}

func writeUsageCSV(c echo.Context, q usage.Query, currency string, rows []usageRowView) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="usage.csv"`)
	c.Response().WriteHeader(http.StatusOK)
	w := csv.NewWriter(c.Response())
	_ = w.Write(usageCSVHeader)
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
	for _, r := range rows {
		cost := ""
		if r.EstimatedCost != nil {
			cost = num(*r.EstimatedCost)
		}
		_ = w.Write([]string{r.PeriodStart.Format(time.RFC3339), r.PeriodEnd.Format(time.RFC3339), string(q.GroupBy),
			csvCell(r.Key), csvCell(r.Name), num(r.RunningSeconds), num(r.PausedSeconds), strconv.Itoa(r.InstancesCreated),
			strconv.Itoa(r.InstancesFailed), strconv.Itoa(r.InstancesReplaced), strconv.Itoa(r.Commands), num(r.CommandSeconds),
			num(r.TerminalSeconds), num(r.KeptByteDays), cost, currency})
	}
	w.Flush()
	return w.Error()
}

// csvCell keeps a name a spreadsheet would run as a formula from being one.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
