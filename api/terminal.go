package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/coder/websocket"
	"github.com/labstack/echo/v4"
)

// DefaultTerminalGrace is how long a terminal outlives its dropped WebSocket.
const DefaultTerminalGrace = 30 * time.Second

// maxTerminalCells bounds a terminal's columns and rows.
const maxTerminalCells = 1000

// ticketService issues and redeems the single-use tickets that open a
// run's terminal from a browser.
type ticketService interface {
	IssueTicket(ctx context.Context, a auxilia.Actor, runID string, approved bool) (string, time.Time, error)
	RedeemTicket(ctx context.Context, value string) (auxilia.Actor, auxilia.TerminalTicket, error)
}

const ticketKey = "auxilia.terminalTicket"

// authenticateTerminal authenticates the terminal's WebSocket by a ticket
// (?ticket=), taken once, or else by a bearer token or the console's session
// cookie as every route does (the WebSocket refuses a page of another
// origin, so a cookie cannot be used from one).
func authenticateTerminal(tokens TokenService, sessions SessionService) echo.MiddlewareFunc {
	bearer := authenticate(tokens, sessions)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			value := c.QueryParam("ticket")
			if value == "" {
				return bearer(next)(c)
			}
			a, t, err := tokens.RedeemTicket(c.Request().Context(), value)
			if err != nil {
				if a.TokenID != "" {
					c.Set(refusedActorKey, a)
				}
				return err
			}
			if t.SessionID != "" {
				// A person's ticket opens the terminal only with that person's session cookie.
				if a, err = ticketSession(c, sessions, t.SessionID); err != nil {
					return err
				}
			}
			if t.RunID != c.Param("run_id") {
				return auxilia.Errorf(auxilia.CodeUnauthorized, "The ticket opens another run's terminal.")
			}
			c.Set(ticketKey, t)
			c.SetRequest(c.Request().WithContext(auxilia.WithActor(c.Request().Context(), a)))
			return next(c)
		}
	}
}

// ticketSession authenticates the session cookie a person's ticket needs:
// the session that asked for the ticket, still live.
func ticketSession(c echo.Context, sessions SessionService, sessionID string) (auxilia.Actor, error) {
	refused := auxilia.Errorf(auxilia.CodeUnauthorized, "This ticket opens the terminal only with the console session that asked for it.")
	ck, err := c.Cookie(SessionCookie)
	if sessions == nil || err != nil || ck.Value == "" {
		return auxilia.Actor{}, refused
	}
	cur, err := sessions.Authenticate(c.Request().Context(), ck.Value)
	if err != nil {
		return auxilia.Actor{}, err
	}
	if cur.Actor.SessionID != sessionID {
		return auxilia.Actor{}, refused
	}
	return cur.Actor, nil
}

type terminalHandler struct {
	svc      RunService
	tokens   TokenService
	audit    auxilia.Auditor
	sessions *terminalSessions
}

func newTerminalHandler(cfg Config) terminalHandler {
	sessions := newTerminalSessions(cfg.TerminalGrace, cfg.Audit)
	if cfg.Terminals != nil {
		cfg.Terminals.sessions = sessions
	}
	return terminalHandler{svc: cfg.Runs, tokens: cfg.Tokens, audit: cfg.Audit, sessions: sessions}
}

func (h terminalHandler) routes(v1, terminal routes) {
	v1.POST("/runs/:run_id/terminal-tickets", h.ticket)
	terminal.GET("/runs/:run_id/terminal", h.open)
}

type terminalTicketView struct {
	Ticket    string    `json:"ticket" example:"auxt_Q2hhbmdlIG1lOiB0aGlzIGlzIGFuIGV4YW1wbGUu"`
	ExpiresAt time.Time `json:"expires_at" format:"date-time"`
} //@name TerminalTicket

// ticket issues a ticket that opens the run's terminal once.
//
//	@Summary		Get a ticket for a run's terminal
//	@Description	A single-use ticket, valid 30 seconds, that opens the run's terminal as `GET /api/v1/runs/{run_id}/terminal?ticket=…` (a browser cannot send a token on a WebSocket). The terminal is the execute tool's: `disabled` refuses it and `needs_approval` asks for `Auxilia-Approval: granted`, here, as the tool routes do; the ticket remembers the approval. A terminal is approved as it opens, never kept pending: where the binding's approval rule does not let the caller's own word count (`with_call: false`, `granted_by: someone_else`, or `admin` and a member token), it is refused with 428 approval_required and `grant_with_call: false`. A run with as many shells open as it may (4, on this server) is refused here already, unless one of them is a dropped shell this token opened (the ticket takes it back): 409 terminal_limit.
//	@Tags			runs
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id				path		string	true	"Run id"	format(uuid)
//	@Param			Auxilia-Approval	header		string	false	"granted: a person approved the terminal (where the binding's approval rule lets the caller's word count)"	Enums(granted)
//	@Success		201					{object}	terminalTicketView
//	@Failure		401,403,404,409,428	{object}	Problem
//	@ID				createTerminalTicket
//	@Router			/api/v1/runs/{run_id}/terminal-tickets [post]
func (h terminalHandler) ticket(c echo.Context) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	ctx, ws := c.Request().Context(), actor(c).Workspace.ID
	if err := h.svc.CheckTerminal(ctx, ws, id, approved(c)); err != nil {
		return err
	}
	if err := h.sessions.checkRoom(ws, id, actor(c).Principal()); err != nil {
		return err
	}
	value, expires, err := h.tokens.IssueTicket(ctx, actor(c), id, approved(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, terminalTicketView{Ticket: value, ExpiresAt: expires})
}

// open serves the run's terminal over a WebSocket.
//
//	@Summary		Open a run's terminal (WebSocket)
//	@Description	Upgrades to a WebSocket on an interactive shell in the run's instance, in its working directory, with the same limits as its commands. Authorized by a bearer token (and `Auxilia-Approval: granted` where the execute tool needs approval) or by `?ticket=` from `POST /api/v1/runs/{run_id}/terminal-tickets`. Client frames: binary = keystrokes as typed; text = `{"type":"resize","cols":120,"rows":40}`. Server frames: binary = the terminal's output; text = `{"type":"exit","code":3}` when the shell ends (then close 1000), or `{"type":"error","message":"…"}` (then close 1011; 1001 when the server shuts down, which ends its shells). While it is open the run stays active and its instance in use. A dropped connection leaves the shell running for the server's grace period (`AUXILIA_TERMINAL_GRACE`), and a new connection to the run on the same server as the token that opened it (by bearer, or by a ticket that token asked for) takes it back; then the shell is ended. Another token's connection never gets it: it opens a shell of its own. Refusals come before the upgrade, as problems: 422 terminal_unsupported names a provider whose instances have no terminal; 409 terminal_limit when the run already has 4 shells open on the server (dropped ones count until their grace ends); 503 service_unavailable once the server is shutting down. Opening, taking back and closing are audited (`terminal.opened`, `terminal.reattached`, by whoever connected; `terminal.closed`, by the token that opened the shell, the only one that can hold it, with why it ended: it exited or failed, its grace ran out, the server shut down); keystrokes and output never are.
//	@Tags			runs
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id				path		string	true	"Run id"	format(uuid)
//	@Param			ticket				query		string	false	"A ticket, instead of a token"
//	@Param			cols				query		int		false	"Columns"	minimum(1)	maximum(1000)	default(80)
//	@Param			rows				query		int		false	"Rows"		minimum(1)	maximum(1000)	default(24)
//	@Param			Auxilia-Approval	header		string	false	"granted: a person approved the terminal (where the binding's approval rule lets the caller's word count)"	Enums(granted)
//	@Success		101
//	@Failure		400,401,403,404,409,422,428,503	{object}	Problem
//	@ID				openTerminal
//	@Router			/api/v1/runs/{run_id}/terminal [get]
func (h terminalHandler) open(c echo.Context) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	size, err := terminalSize(c)
	if err != nil {
		return err
	}
	who := actor(c) // by bearer, or the token that asked for the ticket
	ws := who.Workspace.ID
	approvedHere := approved(c)
	if t, ok := c.Get(ticketKey).(auxilia.TerminalTicket); ok {
		approvedHere = t.Approved
	}
	done, err := h.sessions.serve()
	if err != nil {
		return err
	}
	defer done()
	ctx := c.Request().Context()
	if !strings.EqualFold(c.Request().Header.Get("Upgrade"), "websocket") {
		// Refused as a WebSocket would be first: another workspace's run is not found, whatever the request.
		if err := h.svc.CheckTerminal(ctx, ws, id, approvedHere); err != nil {
			return err
		}
		return auxilia.Errorf(auxilia.CodeMalformed, "This route is a WebSocket: send Upgrade: websocket.")
	}
	s := h.sessions.detached(ws, id, who.Principal())
	reattached := s != nil
	if reattached {
		// A shell this token opened whose connection dropped: taken back,
		// once the run may still have it, and audited as the opening is.
		if err := h.svc.CheckTerminal(ctx, ws, id, approvedHere); err != nil {
			h.sessions.release(s)
			return err
		}
		if err := auxilia.Audit(ctx, h.audit, ws, "terminal.reattached", "run", id,
			fmt.Sprintf("took back the terminal it opened %s ago, whose connection had dropped",
				time.Since(s.opened).Round(time.Second))); err != nil {
			h.sessions.release(s)
			return err
		}
		if c.QueryParam("cols") != "" || c.QueryParam("rows") != "" {
			_ = s.term.Resize(ctx, size)
		}
	} else {
		giveBack, err := h.sessions.reserve(ws, id)
		if err != nil {
			return err
		}
		term, err := h.svc.OpenTerminal(ctx, ws, id, size, approvedHere)
		if err != nil {
			giveBack()
			return err
		}
		// The audit outlives the request: the shell may close long after.
		s = h.sessions.add(context.WithoutCancel(ctx), ws, who.Principal(), term)
		if err := auxilia.Audit(ctx, h.audit, ws, "terminal.opened", "run", id,
			fmt.Sprintf("opened a %dx%d terminal on provider %s", size.Cols, size.Rows, term.Provider)); err != nil {
			h.sessions.end(s, "its opening could not be audited")
			return err
		}
	}
	// The server's read and write deadlines were for the request; a
	// terminal's connection lasts as long as its user.
	rc := http.NewResponseController(c.Response())
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	conn, err := websocket.Accept(c.Response(), c.Request(), nil)
	if err != nil { // Accept has answered
		if reattached {
			h.sessions.release(s)
		} else {
			h.sessions.end(s, "the WebSocket upgrade failed")
		}
		return nil
	}
	h.sessions.attach(s, conn)
	return nil
}

// terminalSize reads the cols and rows query parameters.
func terminalSize(c echo.Context) (provider.TermSize, error) {
	size := provider.DefaultTermSize
	var fe auxilia.FieldErrors
	for _, p := range []struct {
		name string
		to   *uint16
	}{{"cols", &size.Cols}, {"rows", &size.Rows}} {
		raw := strings.TrimSpace(c.QueryParam(p.name))
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxTerminalCells {
			fe.Add(p.name, "must be a whole number from 1 to %d", maxTerminalCells)
			continue
		}
		*p.to = uint16(n)
	}
	return size, fe.Err()
}
