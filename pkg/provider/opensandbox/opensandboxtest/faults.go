package opensandboxtest

import (
	"bytes"
	"io"
	"log"
	"net/http"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// quiet drops the standard library's log lines about broken connections.
var quiet = log.New(io.Discard, "", 0)

// dialect is how a server words its errors.
type dialect int

const (
	lifecycleDialect dialect = iota // {"code":"DOCKER::…","message":"…"}
	execdDialect                    // {"code":"RUNTIME_ERROR","message":"…"}
)

// misbehave applies a fault's generic parts (delay, error status,
// malformed body) and reports whether it answered the request.
func (s *Server) misbehave(w http.ResponseWriter, r *http.Request, f Fault, d dialect) bool {
	if f.Delay > 0 {
		// Read the body first: only then does the server notice a client that
		// leaves. It is kept for the handler, should the call go on.
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		fakekit.Wait(r.Context(), f.Delay, s.done)
		if r.Context().Err() != nil || s.closing() {
			return true // the client gave up, or the test is over
		}
	}
	switch {
	case f.Status != 0:
		code, message := f.Code, f.Message
		if code == "" {
			code = defaultCode(f.Status, d)
		}
		if message == "" {
			message = http.StatusText(f.Status)
		}
		if d == execdDialect {
			execdError(w, f.Status, code, message)
		} else {
			apiError(w, f.Status, code, message)
		}
		return true
	case f.Malformed:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"id": "truncat`))
		return true
	}
	return false
}

func defaultCode(status int, d dialect) string {
	if d == execdDialect {
		if status >= 500 {
			return "RUNTIME_ERROR"
		}
		return "INVALID_REQUEST_BODY"
	}
	if status >= 500 {
		return "SANDBOX::UNKNOWN_ERROR"
	}
	return "SANDBOX::INVALID_PARAMETER"
}

// slowed is w, sending slowly when the fault says so.
func slowed(w http.ResponseWriter, r *http.Request, f Fault) http.ResponseWriter {
	if f.SlowBody > 0 {
		return fakekit.Slow(w, r, f.SlowBody)
	}
	return w
}
