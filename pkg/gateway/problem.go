package gateway

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// problemTypeBase prefixes each problem's `type`; the rest is its reason.
const problemTypeBase = "https://auxilia.dev/problems/"

// Problem is an RFC 9457 problem document. Its `reason` is one of the codes
// the API speaks (auxilia.Codes); its `subject` says what the reason is
// about where the code alone would lose a distinction the client needs.
type Problem struct {
	Type    string       `json:"type"`
	Title   string       `json:"title"`
	Status  int          `json:"status"`
	Detail  string       `json:"detail"`
	Reason  auxilia.Code `json:"reason"`
	Subject Subject      `json:"subject,omitempty"`
	Errors  []FieldError `json:"errors,omitempty"`
}

// Subject is what a problem's reason is about.
type Subject string

// Subjects a problem may carry; subjects lists every one.
const (
	SubjectSandbox   Subject = "sandbox"
	SubjectSnapshot  Subject = "snapshot"
	SubjectFile      Subject = "file"
	SubjectDirectory Subject = "directory"
	SubjectPath      Subject = "path"
	SubjectArchive   Subject = "archive"
	SubjectBucket    Subject = "bucket"
	SubjectStorage   Subject = "storage"
	SubjectSecret    Subject = "secret"
	SubjectCapacity  Subject = "capacity"
	SubjectCommand   Subject = "command"
	SubjectLauncher  Subject = "launcher"
	SubjectRoute     Subject = "route"
)

// subjects lists every Subject, in the order they are declared.
func subjects() []Subject {
	return []Subject{SubjectSandbox, SubjectSnapshot, SubjectFile, SubjectDirectory, SubjectPath,
		SubjectArchive, SubjectBucket, SubjectStorage, SubjectSecret, SubjectCapacity, SubjectCommand,
		SubjectLauncher, SubjectRoute}
}

// FieldError names one broken field of a request body.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// apiError is an error a handler answers with as a problem. The gateway
// keeps its own statuses; the reason is always a shared code.
type apiError struct {
	status  int
	reason  auxilia.Code
	subject Subject
	detail  string
	fields  []FieldError
}

func (e *apiError) Error() string { return e.detail }

func failure(status int, reason auxilia.Code, detail string) *apiError {
	return &apiError{status: status, reason: reason, detail: detail}
}

// about returns a copy of e that says what its reason is about.
func (e *apiError) about(s Subject) *apiError {
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
