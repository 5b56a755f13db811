package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
)

// HeaderSession carries a session's id on every request after the one
// that opened it.
const HeaderSession = "Mcp-Session-Id"

// OutsideSession reports whether r is a POST that names no session and
// does not open one (its message is not an initialize request): the
// transport asks a server that requires sessions to refuse it with 400.
// The body is read and put back for the transport, a read error included.
// A request of a protocol version not served here (a later, session-less
// one) is left to the transport, which tells such a client the versions
// it may use.
func OutsideSession(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Header.Get(HeaderSession) != "" {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(protocolVersions, v) {
		return false
	}
	body, err := io.ReadAll(r.Body)
	rest := io.Reader(bytes.NewReader(body))
	if err != nil {
		rest = io.MultiReader(rest, failing{err})
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{rest, r.Body}
	if err != nil {
		return false // the transport answers a body it cannot read
	}
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil {
		var batch []struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(body, &batch) != nil {
			return false // the transport answers a malformed message
		}
		for _, m := range batch {
			if m.Method == "initialize" {
				return false
			}
		}
		return true
	}
	return msg.Method != "initialize"
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }
