package main

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// sessionCookie is the security scheme of the console's session cookie.
const sessionCookie = "SessionCookie"

// sessionCookieScheme says that the API's operations take the console's
// session cookie as well as a bearer token (the server uses the cookie only
// when no Authorization header is sent), that a request which changes
// something with it must send its CSRF token or be refused 403, and that
// sign-out takes the cookie alone.
func sessionCookieScheme(doc *openapi3.T) {
	doc.Components.SecuritySchemes[sessionCookie] = &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
		Type: "apiKey", In: "cookie", Name: "auxilia_session",
		Description: "The console's session after single sign-on, where the server has an identity provider " +
			"(GET /auth/config says so). A request that changes something also sends the session's CSRF token, " +
			"the auxilia_csrf cookie's value, as X-CSRF-Token; without it the answer is 403 (forbidden). Taken only " +
			"when no Authorization header is sent.",
	}}
	forbidden := openapi3.NewResponse().WithDescription("Forbidden (forbidden): the token's role may not do this, " +
		"or the request came with the console's session cookie but without its CSRF token as X-CSRF-Token").
		WithContent(openapi3.NewContentWithSchemaRef(openapi3.NewSchemaRef("#/components/schemas/Problem", nil),
			[]string{"application/problem+json"}))
	operations(doc, func(method, path string, op *openapi3.Operation) {
		if path == "/auth/logout" {
			// It revokes the session in the database, which may be unavailable or, embedded, out of disk.
			op.Security = &openapi3.SecurityRequirements{{sessionCookie: []string{}}}
			me := doc.Paths.Find("/api/v1/me").Get.Responses
			op.Responses.Set("503", me.Value("503"))
			op.Responses.Set("507", me.Value("507"))
			return
		}
		if !strings.HasPrefix(path, "/api/v1/") || op.Security == nil || len(*op.Security) == 0 {
			return
		}
		*op.Security = append(*op.Security, openapi3.SecurityRequirement{sessionCookie: []string{}})
		if method != http.MethodGet && method != http.MethodHead && op.Responses.Value("403") == nil {
			op.Responses.Set("403", &openapi3.ResponseRef{Value: forbidden})
		}
	})
}
