package api

import (
	"fmt"
	"net/http"

	"github.com/auxilia/sandboxes/api/mcpserver"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// mcpPath is where each agent's MCP server is served; mcpMetadataPath is
// its OAuth protected resource metadata (RFC 9728), which a refused
// client is pointed to.
const (
	mcpPath         = "/mcp/agents/:id"
	mcpMetadataPath = "/.well-known/oauth-protected-resource/mcp/agents/:id"
)

// mountMCP serves each agent's sandbox tools as an MCP server (Streamable
// HTTP) at /mcp/agents/{id}, behind the same authentication, rate limit
// and refusals' audit as the API, in the token's workspace. A page of
// another origin is refused first, whatever it sends.
func mountMCP(e *echo.Echo, cfg Config) {
	srv := mcpserver.New(mcpserver.Deps{Runs: cfg.Runs, Audit: cfg.Audit, Log: cfg.Log,
		Version: buildVersion(), BodyLimit: cfg.UploadLimit})
	mw := []echo.MiddlewareFunc{checkOrigin(cfg.AllowedOrigins), raiseBodyLimit(cfg.UploadLimit), challengeMCP, authenticate(cfg.Tokens, nil)}
	if cfg.RateLimit > 0 {
		mw = append(mw, rateLimit(cfg.Rates, cfg.RateLimit))
	}
	serve := func(c echo.Context) error {
		agentID, err := pathID(c, "id", "agent")
		if err != nil {
			return err
		}
		if t := c.Request().Header.Get(mcpserver.HeaderThread); t != "" && !auxilia.ValidThreadKey(t) {
			var fe auxilia.FieldErrors
			fe.Add(mcpserver.HeaderThread, "must be 1 to 128 letters, digits or . _ : -, and not . or ..")
			return fe.Err()
		}
		agent, err := cfg.Agents.Get(c.Request().Context(), actor(c).Workspace.ID, agentID)
		if err != nil {
			return err
		}
		if mcpserver.OutsideSession(c.Request()) {
			return auxilia.Errorf(auxilia.CodeMalformed, "This request names no session (%s) and is not an initialize "+
				"request: open a session with initialize, then send its id with every request.", mcpserver.HeaderSession)
		}
		srv.Serve(c.Response(), c.Request(), agent)
		return nil
	}
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		e.Add(method, mcpPath, serve, mw...)
	}
	e.GET(mcpMetadataPath, func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{
			"resource":                 resourceURL(c, "/mcp/agents/"+c.Param("id")),
			"bearer_methods_supported": []string{"header"},
			"resource_name":            "Auxilia sandbox tools",
			"resource_documentation":   resourceURL(c, "/api/v1/openapi.yaml"),
		})
	})
}

// challengeMCP words a refused token as the MCP authorization spec asks:
// WWW-Authenticate names the protected resource metadata. Tokens are made
// in the Auxilia console; no authorization server issues them.
func challengeMCP(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if auxilia.IsCode(err, auxilia.CodeUnauthorized) {
			meta := resourceURL(c, "/.well-known/oauth-protected-resource/mcp/agents/"+c.Param("id"))
			c.Response().Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="auxilia", resource_metadata=%q`, meta))
		}
		return err
	}
}

// resourceURL is an absolute URL of this server, as the client reached it.
func resourceURL(c echo.Context, path string) string {
	return c.Scheme() + "://" + c.Request().Host + path
}
