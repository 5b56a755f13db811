// Package auxilia holds the domain of Auxilia sandboxes: its types, the error
// codes every layer speaks, and nothing that depends on how they are stored or served.
package auxilia

import (
	"errors"
	"fmt"
	"time"
)

// Code is a stable, machine-readable error reason. The API writes it as the
// problem's `reason`; clients branch on it.
type Code string

// Error codes. Adding one means adding it to Codes and its HTTP status in
// the api package; TestCodesListsEveryCode and TestProblemStatusForEveryCode
// fail until both are done.
const (
	CodeInvalid            Code = "validation_failed"
	CodeMalformed          Code = "malformed_request"
	CodeNotFound           Code = "not_found"
	CodeMethodNotAllowed   Code = "method_not_allowed"
	CodeConflict           Code = "conflict"
	CodeIdempotencyReused  Code = "idempotency_key_reused"
	CodeInFlight           Code = "request_in_flight"
	CodeSandboxInUse       Code = "sandbox_in_use"
	CodeSandboxUnavailable Code = "sandbox_unavailable"
	CodeSandboxBusy        Code = "sandbox_busy"
	CodeProviderLimited    Code = "provider_rate_limited"
	CodeQuotaExceeded      Code = "quota_exceeded"
	CodePrecondition       Code = "precondition_failed"
	CodeUnauthorized       Code = "unauthorized"
	CodeForbidden          Code = "forbidden"
	CodeToolDisabled       Code = "tool_disabled"
	CodeApprovalRequired   Code = "approval_required"
	CodeApprovalDenied     Code = "approval_denied"
	CodeGrantNotAllowed    Code = "grant_not_allowed"
	CodeFileExists         Code = "file_exists"
	CodeRunNotActive       Code = "run_not_active"
	CodeNoTerminal         Code = "terminal_unsupported"
	CodeTerminalLimit      Code = "terminal_limit"
	CodeTooLarge           Code = "payload_too_large"
	CodeUnsupportedMedia   Code = "unsupported_media_type"
	CodeRateLimited        Code = "rate_limited"
	CodeUnavailable        Code = "service_unavailable"
	CodeDiskFull           Code = "insufficient_storage"
	CodeInternal           Code = "internal"
)

// Codes lists every error code, in the order they are declared.
func Codes() []Code {
	return []Code{CodeInvalid, CodeMalformed, CodeNotFound, CodeMethodNotAllowed, CodeConflict,
		CodeIdempotencyReused, CodeInFlight, CodeSandboxInUse, CodeSandboxUnavailable, CodeSandboxBusy,
		CodePrecondition, CodeUnauthorized, CodeForbidden, CodeToolDisabled, CodeApprovalRequired,
		CodeApprovalDenied, CodeGrantNotAllowed, CodeFileExists, CodeRunNotActive, CodeNoTerminal,
		CodeTerminalLimit, CodeTooLarge, CodeUnsupportedMedia, CodeRateLimited, CodeProviderLimited,
		CodeQuotaExceeded, CodeUnavailable, CodeDiskFull, CodeInternal}
}

// Error is an error the user may read: its Message is safe to show, and its
// Code tells what went wrong. Any other error is internal and is never shown.
type Error struct {
	Code    Code
	Message string
	// Fields lists every broken input field (CodeInvalid).
	Fields []FieldError
	// Extra holds members a client needs to act on the error, such as the
	// id of the existing resource on a conflict.
	Extra map[string]any
	// RetryAfter is how long to wait before trying again (CodeSandboxBusy,
	// CodeProviderLimited, CodeQuotaExceeded, CodeUnavailable).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// With returns a copy of e carrying one more extra member.
func (e *Error) With(key string, value any) *Error {
	out := *e
	out.Extra = make(map[string]any, len(e.Extra)+1)
	for k, v := range e.Extra {
		out.Extra[k] = v
	}
	out.Extra[key] = value
	return &out
}

// ErrorCode returns the code of err, CodeInternal for an error the user may not read.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// IsCode reports whether err is an *Error with the given code.
func IsCode(err error, code Code) bool {
	return err != nil && ErrorCode(err) == code
}

// NotFound is the error for a resource that does not exist in the caller's
// workspace (or exists in another one: the two are indistinguishable).
func NotFound(resource string) *Error {
	return Errorf(CodeNotFound, "%s not found", resource)
}

// Stale is the error for a write made from a stale read: the resource's
// version (its ETag) is no longer one the caller expected.
func Stale(resource string, actual int) *Error {
	return Errorf(CodePrecondition, "The %s changed since it was read (it is now at version %d): read it again.", resource, actual)
}

// FieldError names one broken input field by its dotted JSON path.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// FieldErrors collects every broken field of an input, so that all of them
// are reported at once.
type FieldErrors []FieldError

// Add records that field is broken.
func (fe *FieldErrors) Add(field, format string, args ...any) {
	*fe = append(*fe, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// Has reports whether field (exactly) is already recorded as broken.
func (fe FieldErrors) Has(field string) bool {
	for _, f := range fe {
		if f.Field == field {
			return true
		}
	}
	return false
}

// Err returns nil when nothing is broken, else a CodeInvalid *Error listing every field.
func (fe FieldErrors) Err() error {
	if len(fe) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalid, Message: "The request has invalid fields.", Fields: fe}
}
