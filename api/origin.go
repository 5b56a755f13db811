package api

import (
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/labstack/echo/v4"
)

// ParseOrigin reads an origin as a browser sends it in Origin,
// scheme://host[:port], and returns it as a browser writes it: in lower
// case, without the scheme's default port. "null", the origin of
// sandboxed frames and of local files, is no origin: any page can send it.
func ParseOrigin(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "null" {
		return "", errors.New("cannot be allowed: null is the origin of sandboxed frames and local files, which any page can send")
	}
	u, err := url.Parse(raw)
	scheme := ""
	if err == nil {
		scheme = strings.ToLower(u.Scheme)
	}
	if err != nil || (scheme != "http" && scheme != "https") || u.Host == "" || u.User != nil ||
		u.Opaque != "" || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", errors.New("must be scheme://host[:port], as a browser sends it, such as https://console.example.com")
	}
	host := strings.ToLower(u.Host)
	if port := u.Port(); (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		host = strings.TrimSuffix(host, ":"+port)
	}
	return scheme + "://" + host, nil
}

// checkOrigin refuses a request sent by a page of another origin, as the
// MCP transport asks of its servers: what a page opened anywhere makes its
// visitor's browser send does not reach the tools. A request without
// Origin is no page's and passes, as does one from this server's own pages
// (the Origin's host and port are the request's Host, whichever scheme a
// proxy in front serves) or from an origin the operator allowed. A page
// whose own name an attacker pointed at this server's address passes that
// rule; the token stops it, which a browser never sends unasked.
func checkOrigin(allowed []string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			for _, origin := range c.Request().Header.Values("Origin") {
				if !originAllowed(origin, c.Request().Host, allowed) {
					return auxilia.Errorf(auxilia.CodeForbidden,
						"Requests from pages of origin %q are refused here: this endpoint serves clients that send no Origin, "+
							"this server's own pages and the origins its operator allows (AUXILIA_ALLOWED_ORIGINS).",
						provider.Clip(origin, 100))
				}
			}
			return next(c)
		}
	}
}

// originAllowed reports whether a page of origin may call this server,
// reached at host.
func originAllowed(origin, host string, allowed []string) bool {
	o, err := ParseOrigin(origin)
	if err != nil {
		return false
	}
	scheme, _, _ := strings.Cut(o, "://")
	own, err := ParseOrigin(scheme + "://" + host)
	return (err == nil && o == own) || slices.Contains(allowed, o)
}
