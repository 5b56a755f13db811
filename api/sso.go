package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/sso"
	"github.com/labstack/echo/v4"
)

// SessionService signs people in with the identity provider and
// authenticates their session cookies (nil: single sign-on is off).
type SessionService interface {
	ProviderName() string
	SecureCookies() bool
	Login(ctx context.Context, workspace string) (url, cookie string, err error)
	Callback(ctx context.Context, cookie, state, code string) (sso.Signed, error)
	Authenticate(ctx context.Context, value string) (sso.Current, error)
	Logout(ctx context.Context, value string) error
}

// The cookies of a console session. The session's is HttpOnly; the CSRF
// token's is readable by the console, which sends it back as HeaderCSRF on
// every request that changes something.
const (
	SessionCookie = "auxilia_session"
	CSRFCookie    = "auxilia_csrf"
	HeaderCSRF    = "X-CSRF-Token"
	loginCookie   = "auxilia_oidc_login"
	loginPath     = "/auth/oidc"
)

type ssoHandler struct {
	svc SessionService
	log *slog.Logger
}

func (h ssoHandler) routes(e *echo.Echo) {
	e.GET("/auth/config", h.config)
	e.GET(loginPath+"/login", h.configured(h.login))
	e.GET(loginPath+"/callback", h.configured(h.callback))
	e.POST("/auth/logout", h.configured(h.logout))
}

// configured answers 404 while single sign-on is off.
func (h ssoHandler) configured(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if h.svc == nil {
			return auxilia.Errorf(auxilia.CodeNotFound, "Single sign-on is not configured on this server: sign in with a token.")
		}
		return next(c)
	}
}

type authConfigView struct {
	// OIDC tells whether people can sign in with the identity provider.
	OIDC bool `json:"oidc"`
	// ProviderName names the provider on the sign-in button ("" without OIDC).
	ProviderName string `json:"provider_name" example:"Acme SSO"`
	// LoginURL starts a sign-in in the browser ("" without OIDC).
	LoginURL string `json:"login_url" example:"/auth/oidc/login"`
} //@name AuthConfig

// config tells the console how people may sign in. It needs no token.
//
//	@Summary	How people sign in to the console
//	@Tags		auth
//	@Produce	json
//	@Success	200	{object}	authConfigView
//	@ID			getAuthConfig
//	@Router		/auth/config [get]
func (h ssoHandler) config(c echo.Context) error {
	if h.svc == nil {
		return c.JSON(http.StatusOK, authConfigView{})
	}
	return c.JSON(http.StatusOK, authConfigView{OIDC: true, ProviderName: h.svc.ProviderName(), LoginURL: loginPath + "/login"})
}

// login sends the browser to the identity provider to sign in.
//
//	@Summary	Start signing in with the identity provider
//	@Tags		auth
//	@Param		workspace	query	string	false	"The workspace to open, among those the person's groups give"
//	@Success	302
//	@Failure	404,503	{object}	Problem
//	@ID			startOIDCLogin
//	@Router		/auth/oidc/login [get]
func (h ssoHandler) login(c echo.Context) error {
	to, value, err := h.svc.Login(c.Request().Context(), c.QueryParam("workspace"))
	if err != nil {
		return err
	}
	c.SetCookie(h.cookie(loginCookie, value, loginPath, true, time.Now().Add(10*time.Minute)))
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Redirect(http.StatusFound, to)
}

// callback finishes the sign-in the provider sends the browser back from:
// it opens a session and goes to the console. A sign-in that fails goes
// back to the console's sign-in screen with the reason's code, which the
// screen words (never the server's text: a link could then put any words
// on our page); the server logs why.
//
//	@Summary		Finish signing in with the identity provider
//	@Description	Found: to `/` with the session's cookies once signed in; to `/?sign_in_failed=REASON` when not: `refused` (the provider refused, or the state, the sign-in's cookie or the ID token was not right: sign in again), `no_workspace` (none of the person's groups gives a workspace here), `unavailable` (the identity provider could not be reached) or `failed` (anything else; the server's log says why).
//	@Tags			auth
//	@Param			code	query	string	false	"The authorization code"
//	@Param			state	query	string	true	"The state the sign-in started with"
//	@Success		302
//	@Failure		404	{object}	Problem
//	@ID				finishOIDCLogin
//	@Router			/auth/oidc/callback [get]
func (h ssoHandler) callback(c echo.Context) error {
	c.SetCookie(h.cookie(loginCookie, "", loginPath, true, time.Unix(0, 0))) // used once, whatever happens
	c.Response().Header().Set("Cache-Control", "no-store")
	if e := c.QueryParam("error"); e != "" {
		return h.failed(c, auxilia.Errorf(auxilia.CodeUnauthorized, "the identity provider did not sign the person in (%s)", url.QueryEscape(e)))
	}
	ck, err := c.Cookie(loginCookie)
	if err != nil {
		return h.failed(c, auxilia.Errorf(auxilia.CodeUnauthorized, "the sign-in's cookie is missing: it expired or was not started here"))
	}
	signed, err := h.svc.Callback(c.Request().Context(), ck.Value, c.QueryParam("state"), c.QueryParam("code"))
	if err != nil {
		return h.failed(c, err)
	}
	c.SetCookie(h.cookie(SessionCookie, signed.Value, "/", true, signed.Session.ExpiresAt))
	c.SetCookie(h.cookie(CSRFCookie, signed.CSRF, "/", false, signed.Session.ExpiresAt))
	return c.Redirect(http.StatusFound, "/")
}

// SignInFailed is the query parameter that tells the console's sign-in
// screen why a sign-in with the identity provider failed.
const SignInFailed = "sign_in_failed"

// failed sends the browser back to the sign-in screen with err's reason.
func (h ssoHandler) failed(c echo.Context, err error) error {
	reason := "failed"
	switch {
	case auxilia.IsCode(err, auxilia.CodeUnauthorized):
		reason = "refused"
	case auxilia.IsCode(err, auxilia.CodeForbidden):
		reason = "no_workspace"
	case auxilia.IsCode(err, auxilia.CodeUnavailable):
		reason = "unavailable"
	}
	h.log.WarnContext(c.Request().Context(), "sign-in with the identity provider failed", "reason", reason, "error", err)
	return c.Redirect(http.StatusFound, "/?"+SignInFailed+"="+reason)
}

// logout ends the console session and clears its cookies.
//
//	@Summary	Sign out of the console
//	@Tags		auth
//	@Param		X-CSRF-Token	header	string	true	"The session's CSRF token (the auxilia_csrf cookie)"
//	@Success	204
//	@Failure	403,404	{object}	Problem
//	@ID			logout
//	@Router		/auth/logout [post]
func (h ssoHandler) logout(c echo.Context) error {
	if ck, err := c.Cookie(SessionCookie); err == nil && ck.Value != "" {
		cur, err := h.svc.Authenticate(c.Request().Context(), ck.Value)
		if err == nil && !cur.CheckCSRF(c.Request().Header.Get(HeaderCSRF)) {
			return errCSRF
		}
		if err := h.svc.Logout(c.Request().Context(), ck.Value); err != nil {
			return err
		}
	}
	gone := time.Unix(0, 0)
	c.SetCookie(h.cookie(SessionCookie, "", "/", true, gone))
	c.SetCookie(h.cookie(CSRFCookie, "", "/", false, gone))
	return c.NoContent(http.StatusNoContent)
}

func (h ssoHandler) cookie(name, value, path string, httpOnly bool, expires time.Time) *http.Cookie {
	ck := &http.Cookie{Name: name, Value: value, Path: path, HttpOnly: httpOnly, Secure: h.svc.SecureCookies(),
		SameSite: http.SameSiteLaxMode, Expires: expires}
	if value == "" {
		ck.MaxAge = -1
	}
	return ck
}

var errCSRF = auxilia.Errorf(auxilia.CodeForbidden,
	"A request made with the console's session must send its CSRF token (the auxilia_csrf cookie) as X-CSRF-Token.")

// authenticateSession authenticates a request by the console's session
// cookie; one that changes something must carry the session's CSRF token.
func authenticateSession(c echo.Context, sessions SessionService, value string) (auxilia.Actor, error) {
	cur, err := sessions.Authenticate(c.Request().Context(), value)
	if err != nil {
		return auxilia.Actor{}, err
	}
	switch c.Request().Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		if !cur.CheckCSRF(c.Request().Header.Get(HeaderCSRF)) {
			return cur.Actor, errCSRF
		}
	}
	return cur.Actor, nil
}
