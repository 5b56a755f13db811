package gateway

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// problemTypeBase prefixes each problem's `type`; the rest is its reason.
const problemTypeBase = "https://auxilia.dev/problems/"

// The gateway's problem document, declared once for both sides in wire.
type (
	Problem    = wire.Problem
	FieldError = wire.FieldError
)

// apiError is an error a handler answers with as a problem. The gateway
// keeps its own statuses; the reason is always a shared code.
type apiError struct {
	status  int
	reason  auxilia.Code
	subject wire.Subject
	detail  string
	fields  []FieldError
}

func (e *apiError) Error() string { return e.detail }

func failure(status int, reason auxilia.Code, detail string) *apiError {
	return &apiError{status: status, reason: reason, detail: detail}
}

// about returns a copy of e that says what its reason is about.
func (e *apiError) about(s wire.Subject) *apiError {
	out := *e
	out.subject = s
	return &out
}

func invalid(fields []FieldError) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, reason: auxilia.CodeInvalid,
		detail: "The request has invalid fields.", fields: fields}
}

func problemOf(err error) Problem {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = failure(http.StatusInternalServerError, auxilia.CodeInternal, "internal error")
	}
	return Problem{
		Type:    problemTypeBase + string(ae.reason),
		Title:   http.StatusText(ae.status),
		Status:  ae.status,
		Detail:  ae.detail,
		Reason:  ae.reason,
		Subject: ae.subject,
		Errors:  ae.fields,
	}
}

// writeProblem answers with err as a problem document.
func writeProblem(w http.ResponseWriter, err error) {
	p := problemOf(err)
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
