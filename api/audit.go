package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// AuditLog keeps and lists the audit entries.
type AuditLog interface {
	auxilia.Auditor
	List(ctx context.Context, workspaceID string, f auxilia.AuditFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.AuditEntry], error)
}

// auditedRoutes are the routes that change something. Services record their
// successes in the same transaction as the change; the middleware records
// their refusals.
var auditedRoutes = map[string]struct{ action, resource string }{
	"POST /api/v1/tokens":                             {"token.create", "token"},
	"DELETE /api/v1/tokens/:id":                       {"token.revoke", "token"},
	"POST /api/v1/sandboxes":                          {"sandbox.create", "sandbox"},
	"PATCH /api/v1/sandboxes/:id":                     {"sandbox.update", "sandbox"},
	"DELETE /api/v1/sandboxes/:id":                    {"sandbox.delete", "sandbox"},
	"POST /api/v1/sandboxes/probe":                    {"sandbox.probe", "sandbox"},
	"POST /api/v1/sandboxes/:id/probe":                {"sandbox.probe", "sandbox"},
	"POST /api/v1/agents":                             {"agent.create", "agent"},
	"PATCH /api/v1/agents/:id":                        {"agent.update", "agent"},
	"DELETE /api/v1/agents/:id":                       {"agent.delete", "agent"},
	"PUT /api/v1/agents/:id/sandbox":                  {"binding.put", "binding"},
	"DELETE /api/v1/agents/:id/sandbox":               {"binding.delete", "binding"},
	"DELETE /api/v1/agents/:id/threads/:thread_id":    {"thread.delete", "thread"},
	"POST /api/v1/agents/:id/threads/:thread_id/runs": {"run.start", "run"},
	"POST /api/v1/runs/:run_id/complete":              {"run.complete", "run"},
	"POST /api/v1/runs/:run_id/terminal-tickets":      {"terminal.ticket", "run"},
	"GET /api/v1/runs/:run_id/terminal":               {"terminal.opened", "run"},
	"POST /mcp/agents/:id":                            {"mcp.call", "agent"},

	// A decision refused (one the agent's approval rule does not let its
	// token make, or one made already) is recorded beside the decisions.
	"POST /api/v1/runs/:run_id/approvals/:approval_id/decision": {"tool.approve", "run"},
}

// refusedActorKey holds who sent a refused token (a revoked one), so its refusals are recorded in its workspace.
const refusedActorKey = "auxilia.refusedActor"

// auditRefusals records every refused attempt at an audited route: who
// tried, what, and why (the problem's detail and the broken fields' names;
// never a value).
func auditRefusals(log AuditLog, logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			spec, audited := auditedRoutes[c.Request().Method+" "+c.Path()]
			err := next(c)
			if !audited || err == nil {
				return err
			}
			p := problemOf(err)
			// A dry run's answer is what it asked for, the refusal of the body
			// too; a dry run the caller may not make is recorded as any other.
			if dryRun, _ := boolQuery(c, "dry_run"); dryRun && outcomeOf(p.Status) != auxilia.OutcomeDenied {
				return err
			}
			a, ok := auxilia.ActorFrom(c.Request().Context())
			if !ok {
				a, _ = c.Get(refusedActorKey).(auxilia.Actor)
			}
			entry := auxilia.AuditEntry{WorkspaceID: a.Workspace.ID, TokenID: a.TokenID, TokenName: a.TokenName, UserID: a.UserID, UserName: a.UserName,
				Action: spec.action, ResourceType: spec.resource, ResourceID: resourceID(c),
				Outcome: outcomeOf(p.Status), Detail: refusalDetail(p)}
			ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), 5*time.Second)
			defer cancel()
			if aerr := log.Append(ctx, entry); aerr != nil {
				logger.WarnContext(ctx, "record refused attempt", "request_id", requestID(c), "error", aerr.Error())
			}
			return err
		}
	}
}

func outcomeOf(status int) auxilia.AuditOutcome {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return auxilia.OutcomeDenied
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity:
		return auxilia.OutcomeInvalid
	case http.StatusConflict, http.StatusPreconditionFailed:
		return auxilia.OutcomeConflict
	default:
		return auxilia.OutcomeError
	}
}

func refusalDetail(p Problem) string {
	if len(p.Errors) == 0 {
		return p.Detail
	}
	names := make([]string, len(p.Errors))
	for i, e := range p.Errors {
		names[i] = e.Field
	}
	return p.Detail + " Invalid: " + strings.Join(names, ", ") + "."
}

type auditActorView struct {
	TokenID   string `json:"token_id"`
	TokenName string `json:"token_name"`
	// The person signed in to the console who made the request ("" for a token).
	UserID   string `json:"user_id"`
	UserName string `json:"user_name"`
} //@name AuditActor

type auditEntryView struct {
	ID           string         `json:"id" format:"uuid"`
	At           time.Time      `json:"at" format:"date-time"`
	Actor        auditActorView `json:"actor"`
	Action       string         `json:"action" example:"sandbox.create"`
	ResourceType string         `json:"resource_type" extensions:"x-enum=audit_resource_types"`
	ResourceID   string         `json:"resource_id"`
	Outcome      string         `json:"outcome" enums:"success,denied,invalid,conflict,error"`
	Detail       string         `json:"detail"`
} //@name AuditEntry

type auditList list[auditEntryView] //@name AuditList

type auditHandler struct{ log AuditLog }

func (h auditHandler) routes(g routes) {
	g.GET("/audit", h.list, adminOnly)
}

// list pages through the workspace's audit log, newest first.
//
//	@Summary	The audit log
//	@Tags		audit
//	@Produce	json
//	@Security	BearerAuth
//	@Param		resource_type	query		string	false	"Only entries about this kind of resource"	extensions(x-enum=audit_resource_types)
//	@Param		resource_id		query		string	false	"Only entries about this resource"
//	@Param		actor			query		string	false	"Only entries by this token id"
//	@Param		action			query		string	false	"Only entries of this action"	extensions(x-enum=audit_actions)
//	@Param		outcome			query		string	false	"Only entries with this outcome"	Enums(success, denied, invalid, conflict, error)
//	@Param		since			query		string	false	"Only entries at or after this time (RFC 3339)"	format(date-time)
//	@Param		until			query		string	false	"Only entries before this time (RFC 3339)"	format(date-time)
//	@Param		page_size		query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param		page_token		query		string	false	"next_page_token of the previous page"
//	@Success	200				{object}	auditList
//	@Failure	401,403,422		{object}	Problem
//	@ID			listAuditEntries
//	@Router		/api/v1/audit [get]
func (h auditHandler) list(c echo.Context) error {
	req, err := pageRequest(c)
	var fe auxilia.FieldErrors // every bad parameter at once
	if perr := (*auxilia.Error)(nil); errors.As(err, &perr) {
		fe = perr.Fields
	}
	f := auditFilter(c, &fe)
	if err := fe.Err(); err != nil {
		return err
	}
	page, err := h.log.List(c.Request().Context(), actor(c).Workspace.ID, f, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, auditList(listOf(page, func(e auxilia.AuditEntry) auditEntryView {
		return auditEntryView{ID: e.ID, At: e.At, Actor: auditActorView{TokenID: e.TokenID, TokenName: e.TokenName, UserID: e.UserID, UserName: e.UserName},
			Action: e.Action, ResourceType: e.ResourceType, ResourceID: e.ResourceID, Outcome: string(e.Outcome), Detail: e.Detail}
	})))
}

// auditFilter reads the listing's filters, adding each bad one to fe.
func auditFilter(c echo.Context, fe *auxilia.FieldErrors) auxilia.AuditFilter {
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
		}
		return t
	}
	f := auxilia.AuditFilter{
		ResourceType: oneOf("resource_type", auxilia.AuditResourceTypes),
		ResourceID:   c.QueryParam("resource_id"),
		TokenID:      c.QueryParam("actor"),
		Action:       oneOf("action", auxilia.AuditActions),
		Outcome:      auxilia.AuditOutcome(oneOf("outcome", auxilia.AuditOutcomes)),
		Since:        instant("since"),
		Until:        instant("until"),
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		fe.Add("until", "must be later than since")
	}
	return f
}

// resourceID is the id a refused request was about, from its path.
func resourceID(c echo.Context) string {
	if id := c.Param("run_id"); id != "" {
		return id
	}
	return c.Param("id")
}
