package gateway

import (
	"encoding/json"
	"errors"
	"net/http"
)

// problemTypeBase prefixes each problem's `type`; the rest is its reason.
const problemTypeBase = "https://auxilia.dev/problems/"

// Problem is an RFC 9457 problem document with a stable machine `reason`.
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail"`
	Reason string       `json:"reason"`
	Errors []FieldError `json:"errors,omitempty"`
}

// FieldError names one broken field of a request body.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// apiError is an error a handler answers with as a problem.
type apiError struct {
	status int
	reason string
	detail string
	fields []FieldError
}

func (e *apiError) Error() string { return e.detail }

func failure(status int, reason, detail string) *apiError {
	return &apiError{status: status, reason: reason, detail: detail}
}

func invalid(fields []FieldError) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, reason: "validation_failed",
		detail: "The request has invalid fields.", fields: fields}
}

func problemOf(err error) Problem {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = failure(http.StatusInternalServerError, "internal", "internal error")
	}
	return Problem{
		Type:   problemTypeBase + ae.reason,
		Title:  http.StatusText(ae.status),
		Status: ae.status,
		Detail: ae.detail,
		Reason: ae.reason,
		Errors: ae.fields,
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
