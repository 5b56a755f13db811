package opensandboxtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"
)

// The server proxy's WebSocket routes, /sandboxes/{id}/proxy/{port}[/path]
// (server/opensandbox_server/api/proxy.py, _proxy_websocket_request): the
// proxy connects to the sandbox first and only then accepts the client;
// when it cannot, it accepts and closes at once, so the client sees a close
// code rather than the backend's HTTP answer.

func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// proxyWebSocket relays a WebSocket to the sandbox's port: frames both
// ways as they are (text as text, binary as binary), and each side's close
// code and reason passed on to the other.
func (s *Server) proxyWebSocket(w http.ResponseWriter, r *http.Request, sb *sandbox, backend *url.URL) {
	target := *backend
	target.Scheme = "ws"
	target.Path = "/" + r.PathValue("path")
	target.RawPath = ""
	target.RawQuery = r.URL.RawQuery
	up, resp, err := websocket.Dial(r.Context(), target.String(), &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: s.proxy}, HTTPHeader: wsForwarded(r.Header)})
	if err != nil {
		code := websocket.StatusInternalError // OSError: the sandbox cannot be reached
		if resp != nil {
			code = websocket.StatusPolicyViolation // websockets.InvalidStatus: the backend refused the handshake
		}
		failWebSocket(w, r, code, "")
		return
	}
	defer up.CloseNow()
	up.SetReadLimit(-1) // max_size=None
	client, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	defer client.CloseNow()
	client.SetReadLimit(-1)

	ctx, cancel := context.WithCancel(sb.ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		relay(ctx, client, up)
		cancel()
	}()
	relay(ctx, up, client)
	cancel()
	<-done
}

// relay copies from's frames to to until from ends, then closes to with
// from's close code and reason (_relay_client_messages,
// _relay_backend_messages); a connection that broke without a close is
// dropped.
func relay(ctx context.Context, from, to *websocket.Conn) {
	for {
		typ, data, err := from.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			switch {
			case ctx.Err() != nil:
			case errors.As(err, &ce):
				_ = to.Close(ce.Code, ce.Reason)
			default:
				_ = to.CloseNow()
			}
			return
		}
		if to.Write(ctx, typ, data) != nil {
			return
		}
	}
}

// failWebSocket accepts the client, then closes it with code
// (_fail_client_websocket); the reason is cut to 123 bytes.
func failWebSocket(w http.ResponseWriter, r *http.Request, code websocket.StatusCode, reason string) {
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	if len(reason) > 123 {
		reason = reason[:123]
	}
	_ = conn.Close(code, reason)
}

// wsForwarded are the client's headers the proxy passes on: not the
// hop-by-hop ones, nor the credentials, nor the handshake's own
// (_filter_proxy_headers with WEBSOCKET_HANDSHAKE_HEADERS).
func wsForwarded(in http.Header) http.Header {
	dropped := map[string]bool{"Host": true, "Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true,
		"Proxy-Authorization": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true,
		"Authorization": true, "Cookie": true, http.CanonicalHeaderKey(apiKeyHeader): true,
		"Origin": true, "Sec-Websocket-Extensions": true, "Sec-Websocket-Key": true, "Sec-Websocket-Protocol": true,
		"Sec-Websocket-Version": true}
	for _, h := range strings.Split(in.Get("Connection"), ",") {
		dropped[http.CanonicalHeaderKey(strings.TrimSpace(h))] = true
	}
	out := http.Header{}
	for k, v := range in {
		if !dropped[http.CanonicalHeaderKey(k)] {
			out[k] = v
		}
	}
	return out
}

// sandboxGoneReason is how the proxy words a missing sandbox in a close
// reason: Python's str() of the HTTPException's detail.
func sandboxGoneReason(id string) string {
	return fmt.Sprintf("{'code': 'DOCKER::SANDBOX_NOT_FOUND', 'message': 'Sandbox %s not found.'}", id)
}
