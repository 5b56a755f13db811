package opensandboxtest

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// execdTokenHeader carries a sandbox's execd access token.
const execdTokenHeader = "X-EXECD-ACCESS-TOKEN"

type execdHandler func(s *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, f Fault)

type execdRoute struct {
	op Op
	h  execdHandler
}

// execdRouteTable lists execd's routes by method and path (a method that does
// not match answers 404, as execd's router does).
var execdRouteTable = map[string]execdRoute{
	"GET /ping":             {OpPing, ping},
	"POST /command":         {OpCommand, runCommand},
	"DELETE /command":       {OpInterrupt, interruptCommand},
	"POST /files/upload":    {OpUpload, uploadFiles},
	"GET /files/download":   {OpDownload, downloadFile},
	"GET /files/info":       {OpInfo, filesInfo},
	"DELETE /files":         {OpRemoveFiles, removeFiles},
	"GET /directories/list": {OpListDir, listDirectory},
	"POST /directories":     {OpMakeDirs, makeDirectories},
	"DELETE /directories":   {OpRemoveDirs, removeDirectories},
	"POST /pty":             {OpPTYCreate, createPTY},
}

// execdRoutes is one sandbox's execd. Its checks run in execd's order:
// the access token first, then its own proxy, then the route.
func (s *Server) execdRoutes(sb *sandbox) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, port, proxied := throughOwnProxy(r.URL.Path)
		route, known := execdRouteTable[r.Method+" "+path]
		if !known {
			var id string
			if route, id, known = ptyRoute(r.Method, path); known {
				r.SetPathValue("sessionId", id)
			}
		}
		if s.opts.NoPTY && strings.HasPrefix(path, "/pty") {
			known = false
		}
		var fault Fault
		var faulty bool
		if known {
			fault, faulty = s.begin(route.op)
		}
		if !sb.execdUp(time.Now()) || sb.expired() || sb.ctx.Err() != nil {
			fakekit.Drop(w) // the container is not there, or not yet
			return
		}
		if !sb.holdWhilePaused(r.Context()) {
			return // a frozen container never answered
		}
		if s.carriesAPIKey(r.Header) {
			s.sawAPIKey.Store(true)
		}
		switch {
		case s.opts.ExecdAccessToken != "" && r.Header.Get(execdTokenHeader) != s.opts.ExecdAccessToken:
			execdJSON(w, http.StatusUnauthorized, map[string]string{
				"error": "Unauthorized: invalid or missing header " + execdTokenHeader})
		case proxied && port == "":
			http.Error(w, "port is required", http.StatusBadRequest)
		case proxied && port != strconv.Itoa(execdPort):
			http.Error(w, "Bad Gateway", http.StatusBadGateway) // nothing else listens in a fake sandbox
		case !known:
			routeNotFound(w)
		case faulty && route.op == OpPing && fault.NeverReady:
			fakekit.Drop(w)
		case faulty && route.op == OpCommand && fault.Malformed:
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("<html>this is not an event</html>\n\n"))
		case faulty && s.misbehave(w, r, fault, execdDialect):
		default:
			route.h(s, sb, slowed(w, r, fault), r, fault)
		}
	})
}

// throughOwnProxy reads execd's own proxy route, /proxy/{port}/{path},
// which bridge-mode endpoints go through.
func throughOwnProxy(p string) (path, port string, proxied bool) {
	rest, ok := strings.CutPrefix(p, "/proxy/")
	if !ok {
		return p, "", false
	}
	port, sub, _ := strings.Cut(rest, "/")
	return "/" + sub, port, true
}

func ping(_ *Server, _ *sandbox, w http.ResponseWriter, _ *http.Request, _ Fault) {
	w.WriteHeader(http.StatusOK)
}

// execdError answers with execd's error body.
func execdError(w http.ResponseWriter, status int, code, message string) {
	execdJSON(w, status, map[string]string{"code": code, "message": message})
}

// routeNotFound answers as execd's router does for a route it lacks.
func routeNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte("404 page not found"))
}

// carriesAPIKey says whether a call to an execd carries the controller's
// API key, in its own header or as the value of any other.
func (s *Server) carriesAPIKey(h http.Header) bool {
	if h.Get(apiKeyHeader) != "" {
		return true
	}
	for _, values := range h {
		for _, v := range values {
			if s.opts.APIKey != "" && v == s.opts.APIKey {
				return true
			}
		}
	}
	return false
}
