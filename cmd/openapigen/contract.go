package main

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/auxilia/sandboxes/api"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"
)

// refineContract says what Swagger 2 annotations cannot and what generated
// clients need: an http bearer scheme and the console's session cookie,
// public operations marked so,
// nullable references typed, the headers every answer carries, merge
// patches, the event streams, and request bodies closed to
// members they do not list. Each step walks the whole document, so an
// operation or a field added later is covered without a change here.
func refineContract(doc *openapi3.T) error {
	bearerScheme(doc)
	listTags(doc)
	markPublicOperations(doc)
	sessionCookieScheme(doc)
	typeNullableReferences(doc)
	patternThreadIDs(doc)
	acceptMergePatches(doc)
	if err := describeEventStreams(doc); err != nil {
		return err
	}
	answerConditionalGets(doc)
	typeCSVAnswers(doc)
	readDocumentInGo(doc)
	documentHeaders(doc)
	closeRequestBodies(doc)
	return nil
}

// readDocumentInGo lets the Go client parse the YAML text of the document
// it fetches, as oapi-codegen parses any YAML answer: into a string, the
// parse would fail. Other generators read it as the text it is.
func readDocumentInGo(doc *openapi3.T) {
	if item := doc.Paths.Find("/api/v1/openapi.yaml"); item != nil && item.Get != nil {
		if ok := item.Get.Responses.Value("200"); ok != nil && ok.Value.Content.Get("application/yaml") != nil {
			schema := ok.Value.Content.Get("application/yaml").Schema.Value
			schema.Extensions = map[string]any{"x-go-type": "any"}
		}
	}
}

// typeCSVAnswers describes each text/csv answer as the text it is: the
// annotations give it the JSON answer's schema.
func typeCSVAnswers(doc *openapi3.T) {
	operations(doc, func(_, _ string, op *openapi3.Operation) {
		for _, resp := range op.Responses.Map() {
			if resp.Value == nil || resp.Value.Content.Get("text/csv") == nil {
				continue
			}
			text := openapi3.NewStringSchema()
			text.Description = "A header line naming the columns (the JSON rows' fields), then one line a row"
			resp.Value.Content["text/csv"] = &openapi3.MediaType{Schema: text.NewRef()}
		}
	})
}

// answerConditionalGets declares, on every GET whose answer carries an
// ETag, the If-None-Match it takes and the 304 it then may answer.
func answerConditionalGets(doc *openapi3.T) {
	operations(doc, func(method, _ string, op *openapi3.Operation) {
		ok := op.Responses.Value("200")
		if method != "GET" || ok == nil || ok.Value == nil || ok.Value.Headers["ETag"] == nil {
			return
		}
		op.Parameters = append(op.Parameters, &openapi3.ParameterRef{Value: &openapi3.Parameter{
			In: "header", Name: "If-None-Match", Schema: openapi3.NewStringSchema().NewRef(),
			Description: "The ETag last read: when it is still current, the answer is 304 without a body"}})
		notModified := openapi3.NewResponse().WithDescription("Not Modified: the ETag sent in If-None-Match is current")
		notModified.Headers = openapi3.Headers{"ETag": ok.Value.Headers["ETag"]}
		op.Responses.Set("304", &openapi3.ResponseRef{Value: notModified})
	})
}

// operations calls fn with every operation, in a stable order.
func operations(doc *openapi3.T, fn func(method, path string, op *openapi3.Operation)) {
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for _, method := range slices.Sorted(maps.Keys(item.Operations())) {
			fn(method, path, item.GetOperation(method))
		}
	}
}

// bearerScheme replaces Swagger 2's apiKey header, which clients fill with
// the bare token, with HTTP bearer authentication, which they prefix.
func bearerScheme(doc *openapi3.T) {
	for name, scheme := range doc.Components.SecuritySchemes {
		if scheme.Value == nil || scheme.Value.Type != "apiKey" || scheme.Value.Name != "Authorization" {
			continue
		}
		doc.Components.SecuritySchemes[name] = &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
			Type: "http", Scheme: "bearer", Description: "An API token, sent as `Authorization: Bearer <token>`."}}
	}
}

// listTags declares every tag the operations use, in order of name.
func listTags(doc *openapi3.T) {
	names := map[string]bool{}
	operations(doc, func(_, _ string, op *openapi3.Operation) {
		for _, t := range op.Tags {
			names[t] = true
		}
	})
	doc.Tags = nil
	for _, name := range slices.Sorted(maps.Keys(names)) {
		doc.Tags = append(doc.Tags, &openapi3.Tag{Name: name})
	}
}

// markPublicOperations says `security: []` on operations that need no
// token, rather than saying nothing.
func markPublicOperations(doc *openapi3.T) {
	operations(doc, func(_, _ string, op *openapi3.Operation) {
		if op.Security == nil {
			op.Security = openapi3.NewSecurityRequirements()
		}
	})
}

// typeNullableReferences gives a nullable reference (`allOf: [$ref]`) its
// type: in OpenAPI 3.0 `nullable` needs a `type` beside it.
func typeNullableReferences(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var visit func(s *openapi3.Schema)
	visit = func(s *openapi3.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Nullable && s.Type == nil && len(s.AllOf) == 1 {
			if target := resolve(doc, s.AllOf[0]); target != nil && target.Type != nil {
				s.Type = &openapi3.Types{}
				*s.Type = append(*s.Type, *target.Type...)
			}
		}
		for _, p := range s.Properties {
			visit(p.Value)
		}
		if s.Items != nil {
			visit(s.Items.Value)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
		visit(doc.Components.Schemas[name].Value)
	}
}

// patternThreadIDs states what a caller's thread id may be made of.
func patternThreadIDs(doc *openapi3.T) {
	operations(doc, func(_, _ string, op *openapi3.Operation) {
		for _, p := range op.Parameters {
			if p.Value != nil && p.Value.Name == "thread_id" && p.Value.Schema != nil {
				p.Value.Schema.Value.Pattern = auxilia.ThreadKeyPattern
			}
		}
	})
}

// acceptMergePatches documents that a PATCH body is an RFC 7396 merge patch.
func acceptMergePatches(doc *openapi3.T) {
	operations(doc, func(method, _ string, op *openapi3.Operation) {
		if method != "PATCH" || op.RequestBody == nil || op.RequestBody.Value == nil {
			return
		}
		if media := op.RequestBody.Value.Content.Get("application/json"); media != nil {
			op.RequestBody.Value.Content["application/merge-patch+json"] = media
		}
	})
}

// describeEventStreams describes each text/event-stream answer as what it
// is, a stream of named events (api.EventStreams, by operation id), and
// adds each event's data as a component. An answer declared as a bare
// string is the stream's alone (a run start streams with 200 and answers
// JSON with 201): its JSON is dropped, and the stream from the operation's
// other answers.
func describeEventStreams(doc *openapi3.T) error {
	var err error
	operations(doc, func(_, _ string, op *openapi3.Operation) {
		streamOnly := ""
		for code, resp := range op.Responses.Map() {
			if resp.Value == nil || resp.Value.Content.Get("text/event-stream") == nil {
				continue
			}
			if js := resp.Value.Content.Get("application/json"); js != nil && js.Schema != nil && js.Schema.Ref == "" &&
				js.Schema.Value != nil && js.Schema.Value.Type.Is("string") {
				streamOnly = code
			}
		}
		for code, resp := range op.Responses.Map() {
			if resp.Value == nil || resp.Value.Content.Get("text/event-stream") == nil {
				continue
			}
			switch {
			case streamOnly != "" && code != streamOnly:
				delete(resp.Value.Content, "text/event-stream")
				continue
			case code == streamOnly:
				delete(resp.Value.Content, "application/json")
			}
			stream, ok := api.EventStreams[op.OperationID]
			if !ok {
				err = fmt.Errorf("operation %s answers text/event-stream, but api.EventStreams does not describe it", op.OperationID)
				return
			}
			media, e := streamMedia(doc, stream)
			if e != nil {
				err = e
				return
			}
			resp.Value.Content["text/event-stream"] = media
		}
	})
	return err
}

// streamMedia is a stream's description, adding its events' data to the components.
func streamMedia(doc *openapi3.T, stream api.EventStream) (*openapi3.MediaType, error) {
	var lines []string
	var data openapi3.SchemaRefs
	for _, e := range stream.Events {
		name := e.Schema
		if name == "" {
			name = reflect.TypeOf(e.Data).Name()
		}
		if doc.Components.Schemas[name] == nil {
			ref, err := openapi3gen.NewSchemaRefForValue(e.Data, nil, openapi3gen.SchemaCustomizer(enumFromTag))
			if err != nil {
				return nil, fmt.Errorf("event %s: %w", e.Name, err)
			}
			ref.Value.Required = slices.Sorted(maps.Keys(ref.Value.Properties))
			doc.Components.Schemas[name] = ref
		}
		lines = append(lines, fmt.Sprintf("`%s` (data: %s)", e.Name, name))
		if !slices.ContainsFunc(data, func(r *openapi3.SchemaRef) bool { return r.Ref == "#/components/schemas/"+name }) {
			data = append(data, openapi3.NewSchemaRef("#/components/schemas/"+name, doc.Components.Schemas[name].Value))
		}
	}
	ends := make([]string, len(stream.Ends))
	for i, e := range stream.Ends {
		ends[i] = "`" + e + "`"
	}
	// The schema is an event's data, one of the events' (as OpenAPI 3.2's
	// itemSchema says of a stream): generated clients type what they parse.
	// An example of the whole stream would not be one of them: it is told
	// in the description.
	return &openapi3.MediaType{
		Schema: &openapi3.SchemaRef{Value: &openapi3.Schema{
			OneOf: data,
			Description: "Server-sent events, each `event: <name>` and `data: <JSON>`; the schema is an event's data. " +
				strings.Join(lines, ", ") + ". Comments (`: keepalive`) keep a silent stream open. " +
				strings.Join(ends, " or ") + " ends the stream. For example:\n\n```\n" + stream.Example + "```\n",
		}},
	}, nil
}

// enumFromTag gives a field of an event's data the values its `enums` tag
// lists, as swag does for the other schemas.
func enumFromTag(_ string, _ reflect.Type, tag reflect.StructTag, schema *openapi3.Schema) error {
	if values, ok := tag.Lookup("enums"); ok {
		for _, v := range strings.Split(values, ",") {
			schema.Enum = append(schema.Enum, v)
		}
	}
	return nil
}

// documentHeaders names the headers the middleware adds: X-Request-Id on
// every answer, Idempotent-Replayed on an answer stored for an
// Idempotency-Key and given again.
func documentHeaders(doc *openapi3.T) {
	if doc.Components.Headers == nil {
		doc.Components.Headers = openapi3.Headers{}
	}
	header := func(name, description string, schema *openapi3.Schema) *openapi3.HeaderRef {
		h := &openapi3.Header{Parameter: openapi3.Parameter{Description: description, Schema: schema.NewRef()}}
		doc.Components.Headers[name] = &openapi3.HeaderRef{Value: h}
		return &openapi3.HeaderRef{Ref: "#/components/headers/" + name, Value: h}
	}
	requestID := header("RequestId", "The request's id: the caller's X-Request-Id when it sent a sane one, else one made for it. "+
		"Logs and the audit log carry it.", openapi3.NewStringSchema())
	replayed := openapi3.NewStringSchema()
	replayed.Enum = []any{"true"}
	replay := header("IdempotentReplayed", "Present when this answer is the one stored for an earlier request with the same Idempotency-Key, given again.", replayed)
	operations(doc, func(_, _ string, op *openapi3.Operation) {
		idempotent := slices.ContainsFunc(op.Parameters, func(p *openapi3.ParameterRef) bool {
			return p.Value != nil && p.Value.In == "header" && p.Value.Name == "Idempotency-Key"
		})
		for code, ref := range op.Responses.Map() {
			if ref.Value == nil {
				continue
			}
			resp := *ref.Value // answers may be shared between operations
			resp.Headers = maps.Clone(resp.Headers)
			if resp.Headers == nil {
				resp.Headers = openapi3.Headers{}
			}
			resp.Headers["X-Request-Id"] = requestID
			if idempotent {
				resp.Headers["Idempotent-Replayed"] = replay
			}
			op.Responses.Set(code, &openapi3.ResponseRef{Value: &resp})
		}
	})
}

// closeRequestBodies says `additionalProperties: false` on every object a
// request body may hold, nested ones and each variant of a union too: the
// server refuses members it does not know. An object that says otherwise
// (a map, an open config patch) keeps what it says.
func closeRequestBodies(doc *openapi3.T) {
	closed := false
	seen := map[*openapi3.Schema]bool{}
	var visit func(ref *openapi3.SchemaRef)
	visit = func(ref *openapi3.SchemaRef) {
		s := resolve(doc, ref)
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Type.Is(openapi3.TypeObject) && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			s.AdditionalProperties = openapi3.AdditionalProperties{Has: &closed}
		}
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			visit(s.Properties[name])
		}
		for _, refs := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
			for _, r := range refs {
				visit(r)
			}
		}
		visit(s.Items)
	}
	operations(doc, func(_, _ string, op *openapi3.Operation) {
		if op.RequestBody == nil || op.RequestBody.Value == nil {
			return
		}
		for _, media := range op.RequestBody.Value.Content {
			visit(media.Schema)
		}
	})
}

// resolve is the schema a reference names in the document's components,
// or the one it holds.
func resolve(doc *openapi3.T, ref *openapi3.SchemaRef) *openapi3.Schema {
	if ref == nil {
		return nil
	}
	if name, ok := strings.CutPrefix(ref.Ref, "#/components/schemas/"); ok && doc.Components.Schemas[name] != nil {
		return doc.Components.Schemas[name].Value
	}
	return ref.Value
}
