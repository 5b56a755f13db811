package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

const headerRequestID = "X-Request-ID"

// withRequestID takes the caller's X-Request-ID when it is a sane token
// (so it cannot forge log lines or headers), else makes one, and echoes it back.
func withRequestID() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id := c.Request().Header.Get(headerRequestID)
			if !saneRequestID(id) {
				var b [12]byte
				_, _ = rand.Read(b[:])
				id = hex.EncodeToString(b[:])
			}
			c.Set(headerRequestID, id)
			c.Response().Header().Set(headerRequestID, id)
			return next(c)
		}
	}
}

// inArrivalOrder dates the request's statements from its arrival
// (auxilia.Arrived): of those waiting for a database connection, the oldest
// request's goes first, so that a burst is answered in the order it came.
func inArrivalOrder(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		c.SetRequest(r.WithContext(auxilia.Arrived(r.Context(), time.Now())))
		return next(c)
	}
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:", r)
		if !ok {
			return false
		}
	}
	return true
}

func requestID(c echo.Context) string {
	id, _ := c.Get(headerRequestID).(string)
	return id
}

// recoverPanics turns a panic into a logged internal error: the client reads
// a plain 500, the log has the stack and the request id.
func recoverPanics(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				r := recover()
				if r == nil || r == http.ErrAbortHandler {
					if r != nil {
						panic(r)
					}
					return
				}
				log.ErrorContext(c.Request().Context(), "panic", "request_id", requestID(c),
					"method", c.Request().Method, "route", c.Path(), "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = auxilia.Errorf(auxilia.CodeInternal, "internal error")
			}()
			return next(c)
		}
	}
}

const bodyLimitKey = "auxilia.bodyLimit"

// limitBodies caps every request body at limit bytes (routes may raise it
// with raiseBodyLimit). The cap is checked as the body is read, so a declared
// length over it fails on the first read and a longer stream fails when it passes the cap.
func limitBodies(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set(bodyLimitKey, limit)
			req := c.Request()
			req.Body = &limitedBody{c: c, body: req.Body, declared: req.ContentLength}
			return next(c)
		}
	}
}

// raiseBodyLimit lets one route take bodies of up to limit bytes.
func raiseBodyLimit(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set(bodyLimitKey, limit)
			return next(c)
		}
	}
}

// limitedBody reads a request body up to the route's limit.
type limitedBody struct {
	c        echo.Context
	body     io.ReadCloser
	declared int64
	read     int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	limit, _ := b.c.Get(bodyLimitKey).(int64)
	if b.declared > limit || b.read > limit {
		return 0, &http.MaxBytesError{Limit: limit}
	}
	if max := limit - b.read + 1; int64(len(p)) > max {
		p = p[:max]
	}
	n, err := b.body.Read(p)
	b.read += int64(n)
	if b.read > limit {
		return n, &http.MaxBytesError{Limit: limit}
	}
	return n, err
}

func (b *limitedBody) Close() error { return b.body.Close() }

// Authenticator resolves a bearer token to the actor making the request.
// A refused token it recognises (a revoked one) comes back with its actor
// beside the error, so that the refusal is audited in its workspace.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (auxilia.Actor, error)
}

// authenticate requires a valid bearer token, or else the console's
// session cookie when single sign-on is on (sessions not nil), and puts its
// actor in the request context. A request with both is taken by its token.
func authenticate(auth Authenticator, sessions SessionService) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Request().Header.Get(echo.HeaderAuthorization)
			if ck, err := c.Cookie(SessionCookie); h == "" && sessions != nil && err == nil && ck.Value != "" {
				a, err := authenticateSession(c, sessions, ck.Value)
				if err != nil {
					if a.UserID != "" {
						c.Set(refusedActorKey, a)
					}
					return err
				}
				c.SetRequest(c.Request().WithContext(auxilia.WithActor(c.Request().Context(), a)))
				return next(c)
			}
			scheme, token, _ := strings.Cut(h, " ")
			token = strings.TrimSpace(token)
			if !strings.EqualFold(scheme, "Bearer") || token == "" {
				return auxilia.Errorf(auxilia.CodeUnauthorized, "Send an API token as Authorization: Bearer <token>.")
			}
			a, err := auth.Authenticate(c.Request().Context(), token)
			if err != nil {
				if a.TokenID != "" {
					c.Set(refusedActorKey, a)
				}
				return err
			}
			c.SetRequest(c.Request().WithContext(auxilia.WithActor(c.Request().Context(), a)))
			return next(c)
		}
	}
}

// adminOnly refuses members.
func adminOnly(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if actor(c).Role != auxilia.RoleAdmin {
			return auxilia.Errorf(auxilia.CodeForbidden, "This needs an admin token.")
		}
		return next(c)
	}
}
