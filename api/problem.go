package api

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// problemTypeBase prefixes each problem's `type`; the rest is its reason.
const problemTypeBase = "https://auxilia.dev/problems/"

// statusOf maps every error code to its HTTP status: the one place that does.
var statusOf = map[auxilia.Code]int{
	auxilia.CodeInvalid:            http.StatusUnprocessableEntity,
	auxilia.CodeIdempotencyReused:  http.StatusUnprocessableEntity,
	auxilia.CodeNoTerminal:         http.StatusUnprocessableEntity,
	auxilia.CodeMalformed:          http.StatusBadRequest,
	auxilia.CodeNotFound:           http.StatusNotFound,
	auxilia.CodeMethodNotAllowed:   http.StatusMethodNotAllowed,
	auxilia.CodeConflict:           http.StatusConflict,
	auxilia.CodeInFlight:           http.StatusConflict,
	auxilia.CodeSandboxInUse:       http.StatusConflict,
	auxilia.CodeSandboxUnavailable: http.StatusConflict,
	auxilia.CodeFileExists:         http.StatusConflict,
	auxilia.CodeRunNotActive:       http.StatusConflict,
	auxilia.CodeTerminalLimit:      http.StatusConflict,
	auxilia.CodePrecondition:       http.StatusPreconditionFailed,
	auxilia.CodeUnauthorized:       http.StatusUnauthorized,
	auxilia.CodeForbidden:          http.StatusForbidden,
	auxilia.CodeToolDisabled:       http.StatusForbidden,
	auxilia.CodeApprovalRequired:   http.StatusPreconditionRequired,
	auxilia.CodeApprovalDenied:     http.StatusForbidden,
	auxilia.CodeGrantNotAllowed:    http.StatusForbidden,
	auxilia.CodeTooLarge:           http.StatusRequestEntityTooLarge,
	auxilia.CodeUnsupportedMedia:   http.StatusUnsupportedMediaType,
	auxilia.CodeRateLimited:        http.StatusTooManyRequests,
	auxilia.CodeSandboxBusy:        http.StatusTooManyRequests,
	auxilia.CodeProviderLimited:    http.StatusTooManyRequests,
	auxilia.CodeQuotaExceeded:      http.StatusTooManyRequests,
	auxilia.CodeUnavailable:        http.StatusServiceUnavailable,
	auxilia.CodeDiskFull:           http.StatusInsufficientStorage,
	auxilia.CodeInternal:           http.StatusInternalServerError,
}

// codeOfStatus is the reverse, for errors that arrive as bare HTTP statuses
// (Echo's own 404 and 405, for example).
var codeOfStatus = map[int]auxilia.Code{
	http.StatusBadRequest:            auxilia.CodeMalformed,
	http.StatusUnauthorized:          auxilia.CodeUnauthorized,
	http.StatusForbidden:             auxilia.CodeForbidden,
	http.StatusNotFound:              auxilia.CodeNotFound,
	http.StatusMethodNotAllowed:      auxilia.CodeMethodNotAllowed,
	http.StatusRequestEntityTooLarge: auxilia.CodeTooLarge,
	http.StatusUnsupportedMediaType:  auxilia.CodeUnsupportedMedia,
	http.StatusTooManyRequests:       auxilia.CodeRateLimited,
	http.StatusServiceUnavailable:    auxilia.CodeUnavailable,
}

// Problem is an RFC 9457 problem document, with the stable `reason` and the
// list of broken fields that every error of this API carries.
type Problem struct {
	Type     string       `json:"type" example:"https://auxilia.dev/problems/validation_failed"`
	Title    string       `json:"title" example:"Validation failed"`
	Status   int          `json:"status" example:"422"`
	Detail   string       `json:"detail" example:"The request has invalid fields."`
	Instance string       `json:"instance,omitempty" example:"/api/v1/sandboxes"`
	Reason   string       `json:"reason" example:"validation_failed"`
	Errors   []fieldError `json:"errors,omitempty"`
	// Further members, such as existing_id or agents, depending on the reason.
	Extra map[string]any `json:"-"`
	// RetryAfter is the Retry-After header's seconds; 0 sends none.
	RetryAfter int `json:"-"`
} //@name Problem

// fieldError names one broken input field by its dotted JSON path.
type fieldError struct {
	Field   string `json:"field" example:"config.timeout"`
	Message string `json:"message" example:"must be at most 86400"`
} //@name FieldError

// problemOf turns any error into the problem to answer with. Errors that are
// not *auxilia.Error are internal: the client reads only "internal error".
func problemOf(err error) Problem {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		code, ok := codeOfStatus[he.Code]
		if !ok {
			code = auxilia.CodeInternal
		}
		detail := http.StatusText(he.Code)
		if msg, ok := he.Message.(string); ok && he.Code < 500 {
			detail = msg
		}
		if he.Code == http.StatusNotFound {
			detail = "No such route."
		}
		return newProblem(&auxilia.Error{Code: code, Message: detail})
	}
	var ae *auxilia.Error
	if errors.As(err, &ae) {
		return newProblem(ae)
	}
	if oe := outageError(err); oe != nil {
		return newProblem(oe)
	}
	return newProblem(&auxilia.Error{Code: auxilia.CodeInternal, Message: "internal error"})
}

func newProblem(e *auxilia.Error) Problem {
	status, ok := statusOf[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	return Problem{
		Type:   problemTypeBase + string(e.Code),
		Title:  titleOf(e.Code),
		Status: status,
		Detail: e.Message,
		Reason: string(e.Code),
		Errors: fieldErrors(e.Fields),
		Extra:  e.Extra,
		// Whole seconds, rounded up: never sooner than asked.
		RetryAfter: int((e.RetryAfter + time.Second - 1) / time.Second),
	}
}

// titleOf makes "sandbox_in_use" read "Sandbox in use".
func titleOf(code auxilia.Code) string {
	s := strings.ReplaceAll(string(code), "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// MarshalJSON writes the fixed members and then the extra ones.
func (p Problem) MarshalJSON() ([]byte, error) {
	type plain Problem
	return marshalWithExtra(plain(p), p.Extra)
}

// errorHandler writes every error as problem+json: the only place that does.
func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		p := problemOf(err)
		p.Instance = c.Request().URL.Path
		if p.Status >= 500 {
			log.ErrorContext(c.Request().Context(), "request failed",
				"request_id", requestID(c), "method", c.Request().Method, "route", c.Path(), "error", err.Error())
		}
		if p.Status == http.StatusUnauthorized && c.Response().Header().Get("WWW-Authenticate") == "" {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="auxilia"`)
		}
		if p.RetryAfter > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
		}
		if err := writeProblem(c, p); err != nil {
			log.WarnContext(c.Request().Context(), "write problem", "request_id", requestID(c), "error", err.Error())
		}
	}
}

func writeProblem(c echo.Context, p Problem) error {
	body, err := p.MarshalJSON()
	if err != nil {
		return err
	}
	if c.Request().Method == http.MethodHead {
		return c.NoContent(p.Status)
	}
	return c.Blob(p.Status, "application/problem+json", body)
}

func fieldErrors(in []auxilia.FieldError) []fieldError {
	if len(in) == 0 {
		return nil
	}
	out := make([]fieldError, len(in))
	for i, f := range in {
		out[i] = fieldError(f)
	}
	return out
}
