package main

import (
	"context"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The committed spec is what the annotations generate (see
// TestCommittedSpecMatchesAnnotations), so these read it rather than
// generating it again.
func committedSpec(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromFile(committed)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))
	return doc
}

// Generated clients name their methods by operationId: every operation
// has one, unique, short and in lowerCamelCase.
func TestEveryOperationHasAShortUniqueID(t *testing.T) {
	style := regexp.MustCompile(`^[a-z][a-zA-Z]{2,23}$`)
	seen := map[string]string{}
	operations(committedSpec(t), func(method, path string, op *openapi3.Operation) {
		where := method + " " + path
		if !assert.Regexp(t, style, op.OperationID, "%s: an operationId like listSandboxes (@ID in its annotation)", where) {
			return
		}
		if other, ok := seen[op.OperationID]; ok {
			t.Errorf("%s and %s share the operationId %s", other, where, op.OperationID)
		}
		seen[op.OperationID] = where
	})
	assert.Contains(t, seen, "startRun")
}

// Every operation states its security; a public one says `security: []`,
// and the token is an HTTP bearer token.
func TestEveryOperationStatesItsSecurity(t *testing.T) {
	doc := committedSpec(t)
	public := map[string]bool{}
	operations(doc, func(method, path string, op *openapi3.Operation) {
		require.NotNil(t, op.Security, "%s %s", method, path)
		if len(*op.Security) == 0 {
			public[path] = true
		}
	})
	assert.Equal(t, map[string]bool{"/healthz": true, "/readyz": true, "/api/v1/openapi.yaml": true,
		"/auth/config": true, "/auth/oidc/login": true, "/auth/oidc/callback": true}, public)
	scheme := doc.Components.SecuritySchemes["BearerAuth"].Value
	assert.Equal(t, "http", scheme.Type)
	assert.Equal(t, "bearer", scheme.Scheme)
	cookie := doc.Components.SecuritySchemes[sessionCookie].Value
	assert.Equal(t, []string{"apiKey", "cookie", "auxilia_session"}, []string{cookie.Type, cookie.In, cookie.Name})
}

// Every API operation takes the console's session cookie as well as a token,
// and one that changes something says it may be refused 403 without the
// session's CSRF token.
func TestEveryAPIOperationTakesTheSessionCookie(t *testing.T) {
	operations(committedSpec(t), func(method, path string, op *openapi3.Operation) {
		if !strings.HasPrefix(path, "/api/v1/") || len(*op.Security) == 0 {
			return
		}
		assert.Contains(t, *op.Security, openapi3.SecurityRequirement{sessionCookie: []string{}}, "%s %s", method, path)
		if method != http.MethodGet {
			assert.NotNil(t, op.Responses.Value("403"), "%s %s: 403", method, path)
		}
	})
}

// In OpenAPI 3.0 `nullable` counts only beside a `type`.
func TestEveryNullableSchemaHasAType(t *testing.T) {
	doc := committedSpec(t)
	for name, s := range doc.Components.Schemas {
		for prop, p := range s.Value.Properties {
			if p.Ref == "" && p.Value.Nullable {
				assert.NotNil(t, p.Value.Type, "%s.%s is nullable with no type", name, prop)
			}
		}
	}
	sandbox := doc.Components.Schemas["Agent"].Value.Properties["sandbox"].Value
	assert.True(t, sandbox.Type.Is("object"))
	assert.NoError(t, sandbox.VisitJSON(nil), "an agent with no binding validates")
}

// The server refuses members it does not know, so every object a request
// body holds says so; an open map says so too.
func TestRequestBodiesAreClosed(t *testing.T) {
	doc := committedSpec(t)
	var check func(where string, s *openapi3.Schema, seen map[*openapi3.Schema]bool)
	check = func(where string, s *openapi3.Schema, seen map[*openapi3.Schema]bool) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Type.Is("object") {
			says := s.AdditionalProperties.Has != nil || s.AdditionalProperties.Schema != nil // a map says what its members are
			assert.True(t, says, "%s says whether other members may come", where)
		}
		for name, p := range s.Properties {
			check(where+"."+name, p.Value, seen)
		}
		for _, r := range s.OneOf {
			check(where+"|"+r.Ref, r.Value, seen)
		}
		if s.Items != nil {
			check(where+"[]", s.Items.Value, seen)
		}
	}
	bodies := 0
	operations(doc, func(method, path string, op *openapi3.Operation) {
		if op.RequestBody == nil {
			return
		}
		for media, m := range op.RequestBody.Value.Content {
			bodies++
			check(method+" "+path+" "+media, m.Schema.Value, map[*openapi3.Schema]bool{})
		}
		if method == "PATCH" {
			assert.NotNil(t, op.RequestBody.Value.Content.Get("application/merge-patch+json"), "%s %s takes a merge patch", method, path)
		}
	})
	assert.Greater(t, bodies, 10)
	create := doc.Components.Schemas["LocalSandboxCreate"].Value
	assert.Error(t, create.VisitJSON(map[string]any{"name": "x", "provider": "local", "colour": "red"}), "an unknown member")
	assert.Error(t, create.VisitJSON(map[string]any{"name": "x", "provider": "local", "config": map[string]any{"nope": 1}}),
		"an unknown config key")
	assert.NoError(t, doc.Components.Schemas["Problem"].Value.Properties["arguments"].Value.VisitJSON(map[string]any{"command": "ls"}),
		"a problem's arguments are any object")
}

// A sandbox is one of a schema per provider, told apart by `provider`, in
// answers and in create requests alike.
func TestASandboxNarrowsOnItsProvider(t *testing.T) {
	doc := committedSpec(t)
	for _, name := range []string{"Sandbox", "SandboxCreate"} {
		s := doc.Components.Schemas[name].Value
		require.NotNil(t, s.Discriminator, name)
		assert.Equal(t, "provider", s.Discriminator.PropertyName)
		assert.Len(t, s.OneOf, len(doc.Components.Schemas["Provider"].Value.Enum), "a variant per provider")
	}
	create := doc.Components.Schemas["SandboxCreate"].Value
	assert.NoError(t, create.VisitJSON(map[string]any{"name": "x", "provider": "local", "config": map[string]any{"timeout": 60}}))
	assert.Error(t, create.VisitJSON(map[string]any{"name": "x", "provider": "local", "config": map[string]any{"image": "python:3.12"}}),
		"another provider's key is not the local provider's")
}

// The execute stream is described as what it is, and the headers the
// middleware adds are named.
func TestTheStreamAndTheHeadersAreDescribed(t *testing.T) {
	doc := committedSpec(t)
	execute := doc.Paths.Find("/api/v1/runs/{run_id}/execute").Post
	stream := execute.Responses.Value("200").Value.Content.Get("text/event-stream").Schema.Value
	var data []string
	for _, ref := range stream.OneOf {
		data = append(data, ref.Ref)
	}
	assert.Equal(t, []string{"#/components/schemas/StreamOutput", "#/components/schemas/StreamExit", "#/components/schemas/Problem"}, data,
		"each event's data is referenced, so that generated clients keep its type")
	start := doc.Paths.Find("/api/v1/agents/{id}/threads/{thread_id}/runs").Post.Responses.Value("200").Value.Content.Get("text/event-stream")
	assert.Equal(t, "#/components/schemas/RunStartStep", start.Schema.Value.OneOf[0].Ref)
	for _, event := range []string{"`stdout` (data: StreamOutput)", "`exit` (data: StreamExit)", "`error` (data: Problem)"} {
		assert.Contains(t, stream.Description, event)
	}
	assert.Contains(t, doc.Components.Schemas, "StreamExit")
	assert.Contains(t, execute.Responses.Value("200").Value.Headers, "X-Request-Id")
	create := doc.Paths.Find("/api/v1/sandboxes").Post
	assert.Contains(t, create.Responses.Value("201").Value.Headers, "Idempotent-Replayed")
	assert.NotContains(t, doc.Paths.Find("/api/v1/sandboxes").Get.Responses.Value("200").Value.Headers, "Idempotent-Replayed")
}

// Every authenticated operation declares the database's faults: 503
// service_unavailable with Retry-After, and 507 insufficient_storage (even a
// read records its token's use).
func TestEveryAuthenticatedOperationDeclaresTheDatabasesFaults(t *testing.T) {
	operations(committedSpec(t), func(method, path string, op *openapi3.Operation) {
		if op.Security == nil || len(*op.Security) == 0 {
			return
		}
		unavailable := op.Responses.Value("503")
		if assert.NotNil(t, unavailable, "%s %s: 503", method, path) {
			assert.Contains(t, unavailable.Value.Headers, "Retry-After", "%s %s: 503", method, path)
			assert.NotNil(t, unavailable.Value.Content.Get("application/problem+json"), "%s %s: 503", method, path)
		}
		full := op.Responses.Value("507")
		if assert.NotNil(t, full, "%s %s: 507", method, path) {
			assert.NotNil(t, full.Value.Content.Get("application/problem+json"), "%s %s: 507", method, path)
		}
	})
}

// A GET whose answer carries an ETag takes If-None-Match and may answer 304.
func TestConditionalGetsDeclareNotModified(t *testing.T) {
	n := 0
	operations(committedSpec(t), func(method, path string, op *openapi3.Operation) {
		ok := op.Responses.Value("200")
		tagged := method == "GET" && ok != nil && ok.Value.Headers["ETag"] != nil
		assert.Equal(t, tagged, op.Responses.Value("304") != nil, "%s %s: 304 where a GET answers an ETag", method, path)
		assert.Equal(t, tagged, op.Parameters.GetByInAndName("header", "If-None-Match") != nil, "%s %s: If-None-Match", method, path)
		if tagged {
			n++
		}
	})
	assert.GreaterOrEqual(t, n, 5, "agents, bindings, sandboxes, runs and threads")
}

// The document is served as YAML text: generated clients read it as a
// string, not parse it as a JSON object.
func TestTheDocumentIsDeclaredAsYAMLText(t *testing.T) {
	op := committedSpec(t).Paths.Find("/api/v1/openapi.yaml").Get
	require.NotNil(t, op)
	content := op.Responses.Value("200").Value.Content
	assert.Equal(t, []string{"application/yaml"}, slices.Collect(maps.Keys(content)))
	schema := content.Get("application/yaml").Schema.Value
	assert.True(t, schema.Type.Is("string"), "type %v", schema.Type)
}
