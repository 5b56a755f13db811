package gateway

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

func TestTerminalRefusals(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	problem(t, h.call("GET", "/sandboxes/sbx-nosuch/terminal", nil), http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSandbox)
	for _, q := range []string{"?cols=0", "?rows=1001", "?cols=wide"} {
		problem(t, h.call("GET", "/sandboxes/"+sb.ID+"/terminal"+q, nil), http.StatusUnprocessableEntity, auxilia.CodeInvalid)
	}
	// These tests' launcher runs commands without a jail, and so holds no terminal.
	p := problem(t, h.call("GET", "/sandboxes/"+sb.ID+"/terminal", nil), http.StatusNotImplemented, auxilia.CodeNoTerminal)
	assert.Equal(t, "this gateway's launcher (shell) cannot hold a terminal", p.Detail)
}
