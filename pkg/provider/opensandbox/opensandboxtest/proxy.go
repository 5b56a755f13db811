package opensandboxtest

import (
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"

	"github.com/coder/websocket"
)

// proxyTo forwards a call to a sandbox's port through the controller, as
// /sandboxes/{id}/proxy/{port}/… does: any of its methods, bodies streamed
// both ways, the API key and cookies stripped. It adds no access headers of
// its own: callers send the endpoint's headers themselves.
func (s *Server) proxyTo(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch:
	default:
		writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"detail": "Method Not Allowed"})
		return
	}
	id, rawPort := r.PathValue("id"), r.PathValue("port")
	port, err := strconv.Atoi(rawPort)
	if err != nil && isWebSocket(r) {
		http.Error(w, "", http.StatusForbidden) // uvicorn refuses a handshake FastAPI's validation closed
		return
	}
	if err != nil {
		validationError(w, detail("int_parsing", []any{"path", "port"},
			"Input should be a valid integer, unable to parse string as an integer", rawPort))
		return
	}
	sb, ok := s.find(id)
	switch {
	case !ok && isWebSocket(r):
		failWebSocket(w, r, websocket.StatusInternalError, sandboxGoneReason(id))
		return
	case !ok:
		notFound(w, id)
		return
	case sb.exited() && isWebSocket(r):
		failWebSocket(w, r, websocket.StatusInternalError, "{'code': 'DOCKER::NETWORK_MODE_ENDPOINT_UNAVAILABLE', 'message': 'Container is running but has no assigned IP address.'}")
		return
	}
	if sb.exited() {
		// An exited container has no IP address to proxy to: the server's
		// _extract_bridge_ip (services/docker/networking.py) refuses so.
		apiError(w, http.StatusInternalServerError, "DOCKER::NETWORK_MODE_ENDPOINT_UNAVAILABLE",
			"Container is running but has no assigned IP address.")
		return
	}
	backend, _ := url.Parse(sb.execd.URL)
	switch {
	case port == egressPort && sb.sidecar != nil:
		backend, _ = url.Parse(sb.sidecar.server.URL)
	case port != execdPort:
		backend.Host = fmt.Sprintf("127.0.0.1:%d", port) // nothing listens there in a fake sandbox
	case s.opts.Execd != "":
		backend.Host = s.opts.Execd
	}
	if isWebSocket(r) {
		s.proxyWebSocket(w, r, sb, backend)
		return
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme = backend.Scheme
			pr.Out.URL.Host = backend.Host
			pr.Out.URL.Path = "/" + r.PathValue("path")
			pr.Out.URL.RawPath = ""
			pr.Out.URL.RawQuery = r.URL.RawQuery
			pr.Out.Host = backend.Host
			for _, h := range []string{"Authorization", "Cookie", apiKeyHeader} {
				pr.Out.Header.Del(h)
			}
			pr.SetXForwarded()
		},
		Transport:     s.proxy,
		ErrorLog:      quiet, // a cut stream is a test's doing, not news
		FlushInterval: -1,    // stream events as they come
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			apiError(w, http.StatusBadGateway, "GENERAL::UNKNOWN_ERROR",
				fmt.Sprintf("Could not connect to the backend sandbox endpoint='%s' headers=None: %v", backend.Host, err))
		},
	}
	// The backend may answer before the request body is read to its end;
	// without full duplex the server would close that body under the proxy.
	_ = http.NewResponseController(w).EnableFullDuplex()
	rp.ServeHTTP(w, r)
}
