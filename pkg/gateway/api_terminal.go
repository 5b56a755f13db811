package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/coder/websocket"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/hostterm"
)

// maxTermCells bounds a terminal's columns and its rows.
const maxTermCells = 1000

// errTerminalClosed ends the shell of a terminal being closed.
var errTerminalClosed = errors.New("the terminal was closed")

// termSize reads the cols and rows query parameters; 80x24 when absent.
func termSize(q url.Values) (provider.TermSize, error) {
	size := provider.DefaultTermSize
	var errs []FieldError
	for _, p := range []struct {
		name string
		dst  *uint16
	}{{"cols", &size.Cols}, {"rows", &size.Rows}} {
		raw := q.Get(p.name)
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxTermCells {
			errs = append(errs, FieldError{Field: p.name, Message: fmt.Sprintf("must be a whole number from 1 to %d", maxTermCells)})
			continue
		}
		*p.dst = uint16(n)
	}
	if len(errs) > 0 {
		return size, invalid(errs)
	}
	return size, nil
}

// terminal serves GET /sandboxes/{id}/terminal: an interactive shell in
// the sandbox's jail, over a WebSocket (frames as termbridge.go says). The
// shell counts as a running command (the idle reaper leaves the sandbox),
// and ends when the caller goes, the sandbox is deleted or the gateway stops.
func (s *Server) terminal(w http.ResponseWriter, r *http.Request) error {
	sb, err := s.lookup(r)
	if err != nil {
		return err
	}
	size, err := termSize(r.URL.Query())
	if err != nil {
		return err
	}
	launcher, ok := s.launcher.(TerminalLauncher)
	if !ok {
		return failure(http.StatusNotImplemented, auxilia.CodeNoTerminal,
			fmt.Sprintf("this gateway's launcher (%s) cannot hold a terminal", s.launcher.Name()))
	}
	job := sb.job()

	shell, stop := context.WithCancelCause(sb.ctx)
	term, tty, err := hostterm.Open(size, func() { stop(errTerminalClosed) })
	if err != nil {
		stop(nil)
		return failure(http.StatusInternalServerError, auxilia.CodeInternal, "cannot make a pseudo-terminal: "+err.Error()).about(wire.SubjectLauncher)
	}
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		// Accept has answered the caller.
		stop(nil)
		_ = tty.Close()
		term.Ended(-1, nil)
		_ = term.Close()
		return nil
	}

	sb.begin()
	defer sb.end()
	go func() {
		out, err := launcher.RunTerminal(shell, job, tty)
		_ = tty.Close()
		switch {
		case errors.Is(context.Cause(shell), errTerminalClosed):
			term.Ended(-1, nil)
		case shell.Err() != nil:
			term.Ended(-1, errors.New("the sandbox was deleted or the gateway is stopping"))
		case err != nil:
			s.log.Error("terminal failed", "sandbox", job.Sandbox, "error", err)
			term.Ended(-1, errors.New("the sandbox could not run the shell: "+err.Error()))
		default:
			term.Ended(out.ExitCode, nil)
		}
	}()
	bridgeTerminal(conn, term)
	return nil
}
