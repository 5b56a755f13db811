package api

import (
	"net/http"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TestProblemStatusForEveryCode: a code missing from statusOf would be
// answered as a 500: every code has its status, and only
// internal, service_unavailable and insufficient_storage (the server's
// own disk is full) are server errors.
func TestProblemStatusForEveryCode(t *testing.T) {
	for _, code := range auxilia.Codes() {
		status, ok := statusOf[code]
		switch {
		case !ok:
			t.Errorf("code %q has no HTTP status in statusOf", code)
		case status >= 500 && code != auxilia.CodeInternal && code != auxilia.CodeUnavailable && code != auxilia.CodeDiskFull:
			t.Errorf("code %q answers %d, a server error", code, status)
		}
		if p := newProblem(&auxilia.Error{Code: code, Message: "m"}); p.Status != status || p.Reason != string(code) {
			t.Errorf("code %q gave problem %d %q", code, p.Status, p.Reason)
		}
	}
	if len(statusOf) != len(auxilia.Codes()) {
		t.Errorf("statusOf maps %d codes, Codes lists %d", len(statusOf), len(auxilia.Codes()))
	}
}

// TestProblemBareStatusHasACode: statuses that arrive bare map to codes that map back.
func TestProblemBareStatusHasACode(t *testing.T) {
	for status, code := range codeOfStatus {
		if statusOf[code] != status {
			t.Errorf("status %d maps to %q, which answers %d", status, code, statusOf[code])
		}
	}
	if p := problemOf(http.ErrAbortHandler); p.Status != http.StatusInternalServerError {
		t.Errorf("a plain error answered %d", p.Status)
	}
}
