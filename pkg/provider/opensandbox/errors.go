package opensandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

const providerName = "opensandbox"

// surface says which server answered: the two speak different error dialects.
type surface int

const (
	lifecycleAPI surface = iota
	execdAPI
)

var failure = provider.Failer(providerName)

// statusError turns an error answer into a provider error carrying the
// server's own code and message.
func statusError(s surface, op string, status int, body []byte) error {
	msg := describeBody(status, body)
	switch {
	case status == http.StatusNotFound && sandboxMissing(body):
		return failure(provider.ErrGone, op, "%s", msg)
	case status == http.StatusNotFound && s == lifecycleAPI && snapshotMissing(body):
		return failure(provider.ErrGone, op, "%s", msg)
	case status == http.StatusNotFound && s == lifecycleAPI && routeMissing(body) && snapshotOps[op]:
		return failure(provider.ErrUnsupported, op, "%s: this OpenSandbox server has no snapshot API (it predates snapshots)", msg)
	case status == http.StatusNotFound && s == lifecycleAPI && routeMissing(body) && op == relabelOp:
		return failure(provider.ErrUnsupported, op, "%s: this OpenSandbox server cannot change a sandbox's metadata (it predates PATCH /sandboxes/{id}/metadata)", msg)
	case status == http.StatusNotImplemented && s == lifecycleAPI:
		return failure(provider.ErrUnsupported, op, "%s", msg)
	case status == http.StatusNotFound && s == lifecycleAPI && routeMissing(body):
		return failure(provider.ErrInvalidConfig, op, "%s: the url does not lead to an OpenSandbox lifecycle API", msg)
	case status == http.StatusNotFound && s == execdAPI && op == openTerminalOp && ginRouteMissing(body):
		return failure(provider.ErrUnsupported, op, "%s: this sandbox's execd has no terminal (it predates execd's /pty API, added in March 2026)", msg)
	case status == http.StatusNotFound && s == lifecycleAPI:
		// Not the sandbox: KUBERNETES::POD_IP_NOT_AVAILABLE while a pod starts, …
		return failure(provider.ErrFailed, op, "%s", msg)
	case status == http.StatusNotFound:
		return failure(provider.ErrNotFound, op, "%s", msg)
	case s == lifecycleAPI && (status == http.StatusBadRequest || status == http.StatusConflict || status == http.StatusUnprocessableEntity):
		return failure(provider.ErrInvalidConfig, op, "%s", msg)
	default:
		return failure(provider.StatusKind(status), op, "%s", msg)
	}
}

// sandboxMissing says whether a 404 is the server's "no such sandbox"
// (DOCKER::SANDBOX_NOT_FOUND, KUBERNETES::…), from the lifecycle API or
// from its proxy in front of an execd, rather than execd's "no such file"
// or another missing thing.
func sandboxMissing(body []byte) bool {
	var e struct {
		Code string `json:"code"`
	}
	return json.Unmarshal(body, &e) == nil && strings.HasSuffix(e.Code, "::SANDBOX_NOT_FOUND")
}

// snapshotOps are the client's operations on snapshots.
var snapshotOps = map[string]bool{"keep": true, "forget": true}

// snapshotMissing says whether a 404 is the server's "no such snapshot"
// (SNAPSHOT::NOT_FOUND, services/snapshot_service.py and snapshot_restore.py).
func snapshotMissing(body []byte) bool {
	var e struct {
		Code string `json:"code"`
	}
	return json.Unmarshal(body, &e) == nil && e.Code == "SNAPSHOT::NOT_FOUND"
}

// ginRouteMissing says whether a 404 is execd's router's own, for a path
// it has no route for (gin's plain-text "404 page not found").
func ginRouteMissing(body []byte) bool {
	return string(bytes.TrimSpace(body)) == "404 page not found"
}

// routeMissing says whether a 404 is the web framework's own, for a path
// the server has no route for: {"detail":"Not Found"}.
func routeMissing(body []byte) bool {
	var e struct {
		Detail string `json:"detail"`
	}
	return json.Unmarshal(body, &e) == nil && e.Detail == "Not Found"
}

// describeBody renders an error body in whichever of the servers' shapes it
// comes: {"code","message"}, FastAPI's {"detail":…}, execd's {"error":…}, or text.
func describeBody(status int, body []byte) string {
	var e struct {
		Code    string          `json:"code"`
		Message string          `json:"message"`
		Error   string          `json:"error"`
		Detail  json.RawMessage `json:"detail"`
	}
	trimmed := bytes.TrimSpace(body)
	if json.Unmarshal(trimmed, &e) == nil {
		switch {
		case e.Code != "" || e.Message != "":
			return joinWords(e.Code, e.Message)
		case e.Error != "":
			return e.Error
		case len(e.Detail) > 0:
			return fmt.Sprintf("%d %s: %s", status, http.StatusText(status), describeDetail(e.Detail))
		}
	}
	if len(trimmed) == 0 {
		return fmt.Sprintf("%d %s", status, http.StatusText(status))
	}
	return fmt.Sprintf("%d %s: %s", status, http.StatusText(status), string(trimmed))
}

// describeDetail reads FastAPI's validation errors: a string, or a list of
// {"loc":[…],"msg":"…"}.
func describeDetail(raw json.RawMessage) string {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return text
	}
	var items []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return string(raw)
	}
	parts := make([]string, 0, len(items))
	for _, it := range items {
		loc := make([]string, 0, len(it.Loc))
		for _, l := range it.Loc {
			loc = append(loc, fmt.Sprint(l))
		}
		parts = append(parts, strings.Join(loc, ".")+": "+it.Msg)
	}
	return strings.Join(parts, "; ")
}

// providerMessage is the provider's own words in err, or err itself.
func providerMessage(err error) string {
	var perr *provider.Error
	if errors.As(err, &perr) {
		return perr.Message
	}
	return err.Error()
}

// joinWords is a code and a message as "code: message", or either alone.
func joinWords(code, message string) string {
	if code != "" && message != "" {
		return code + ": " + message
	}
	return code + message
}
