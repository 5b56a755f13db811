package daytonatest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// apiError writes the control plane's error body, as its NestJS exception
// filter does: {path, timestamp, statusCode, error, message}.
func apiError(w http.ResponseWriter, r *http.Request, status int, message string) {
	writeJSON(w, status, map[string]any{
		"path":       r.URL.RequestURI(),
		"timestamp":  time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		"statusCode": status,
		"error":      http.StatusText(status),
		"message":    message,
	})
}

// toolboxError writes the toolbox's error body, as the Go error middleware
// of Daytona's proxy, runner and daemon does: {statusCode, message, code,
// timestamp, path, method}, path being the path on the server that answers
// (the proxy's, the runner's or the daemon's).
func toolboxError(w http.ResponseWriter, r *http.Request, path string, status int, message string) {
	writeJSON(w, status, map[string]any{
		"statusCode": status,
		"message":    message,
		"code":       strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_")),
		"timestamp":  time.Now().UTC(),
		"path":       path,
		"method":     r.Method,
	})
}

// bareStatus answers with a status and no body, as the daemon's file
// handlers do for every error (gin's AbortWithError writes the status before
// the error middleware could write a body).
func bareStatus(w http.ResponseWriter, status int) {
	w.WriteHeader(status)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeFault answers with an injected fault in the dialect of the server.
func writeFault(w http.ResponseWriter, r *http.Request, f Fault, toolbox bool) {
	for k, vs := range f.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if f.Body != "" {
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
		return
	}
	msg := f.Message
	if msg == "" {
		msg = http.StatusText(f.Status)
	}
	if toolbox {
		toolboxError(w, r, r.URL.Path, f.Status, msg)
		return
	}
	apiError(w, r, f.Status, msg)
}
