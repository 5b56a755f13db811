package client

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"strings"
)

// Error is a problem answer (RFC 9457) as a Go error: its reason (such as
// validation_failed), its status and every field it names.
type Error struct {
	Problem
	// Status is the HTTP status, also when the answer was not a problem.
	Status int
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s: %s", e.Status, e.Reason, e.Detail)
	if e.Errors != nil {
		for _, f := range *e.Errors {
			fmt.Fprintf(&b, "; %s %s", f.Field, f.Message)
		}
	}
	return b.String()
}

// Fields are the paths of the fields a validation problem names.
func (e *Error) Fields() []string {
	var out []string
	if e.Errors != nil {
		for _, f := range *e.Errors {
			out = append(out, f.Field)
		}
	}
	return out
}

// Expect passes on a generated method's answer (a *XxxResponse) when its
// status is a success, and turns any other into an *Error:
//
//	res, err := client.Expect(api.GetSandboxWithResponse(ctx, id))
func Expect[R any](res *R, err error) (*R, error) {
	if err != nil {
		return nil, err
	}
	v := reflect.ValueOf(res).Elem()
	httpRes, _ := v.FieldByName("HTTPResponse").Interface().(*http.Response)
	if httpRes == nil {
		return nil, fmt.Errorf("client: %T is not a generated answer", res)
	}
	if err := problemOf(httpRes, v.FieldByName("Body").Bytes()); err != nil {
		return nil, err
	}
	return res, nil
}

// problemOf is nil for a success, else the answer as an *Error.
func problemOf(res *http.Response, body []byte) error {
	if res.StatusCode < 300 {
		return nil
	}
	e := &Error{Status: res.StatusCode}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if mt != "application/problem+json" || json.Unmarshal(body, &e.Problem) != nil {
		e.Reason = "unexpected_status"
		e.Detail = http.StatusText(res.StatusCode)
	}
	return e
}
