package opensandboxtest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// CreateRequest is the body of a create call, as the fake read it.
type CreateRequest struct {
	Image          *ImageSpec         `json:"image"`
	SnapshotID     string             `json:"snapshotId"`
	Entrypoint     []string           `json:"entrypoint"`
	ResourceLimits map[string]string  `json:"resourceLimits"`
	Timeout        *int               `json:"timeout"`
	Env            map[string]*string `json:"env"`
	Metadata       map[string]string  `json:"metadata"`
	Volumes        []Volume           `json:"volumes"`
	NetworkPolicy  json.RawMessage    `json:"networkPolicy"`
	Extensions     map[string]string  `json:"extensions"`
}

// ImageSpec is the image a sandbox starts from.
type ImageSpec struct {
	URI string `json:"uri"`
}

// Volume is one storage mount of a sandbox.
type Volume struct {
	Name      string          `json:"name"`
	MountPath string          `json:"mountPath"`
	ReadOnly  bool            `json:"readOnly"`
	SubPath   string          `json:"subPath,omitempty"`
	Host      *HostVolume     `json:"host,omitempty"`
	PVC       json.RawMessage `json:"pvc,omitempty"`
	OSSFS     json.RawMessage `json:"ossfs,omitempty"`
}

// HostVolume is a host folder bind-mounted into a sandbox.
type HostVolume struct {
	Path string `json:"path"`
}

type apiStatus struct {
	State            string `json:"state"`
	Reason           string `json:"reason,omitempty"`
	Message          string `json:"message,omitempty"`
	LastTransitionAt string `json:"lastTransitionAt,omitempty"`
}

// apiSandbox is a sandbox as get and list show it (create leaves out image).
type apiSandbox struct {
	ID         string            `json:"id"`
	Image      *ImageSpec        `json:"image,omitempty"`
	Status     apiStatus         `json:"status"`
	Metadata   map[string]string `json:"metadata,omitempty"`
	Entrypoint []string          `json:"entrypoint,omitempty"`
	ExpiresAt  string            `json:"expiresAt,omitempty"`
	CreatedAt  string            `json:"createdAt"`
}

type apiPagination struct {
	Page        int  `json:"page"`
	PageSize    int  `json:"pageSize"`
	TotalItems  int  `json:"totalItems"`
	TotalPages  int  `json:"totalPages"`
	HasNextPage bool `json:"hasNextPage"`
}

// apiTime writes a time as the server's pydantic models do.
func apiTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

// The JSON content types of the two servers: FastAPI's and gin's.
const (
	lifecycleJSON = "application/json"
	execdJSONType = "application/json; charset=utf-8"
)

// writeJSON answers with v as JSON, as the lifecycle server does.
func writeJSON(w http.ResponseWriter, status int, v any) { writeJSONAs(w, status, lifecycleJSON, v) }

// execdJSON answers with v as JSON, as execd does.
func execdJSON(w http.ResponseWriter, status int, v any) { writeJSONAs(w, status, execdJSONType, v) }

func writeJSONAs(w http.ResponseWriter, status int, contentType string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// apiError answers with the lifecycle server's error body.
func apiError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, map[string]string{"code": code, "message": message})
}

// validationError answers as FastAPI does when a request fails its model.
func validationError(w http.ResponseWriter, details ...map[string]any) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": details})
}

func detail(kind string, loc []any, msg string, input any) map[string]any {
	return map[string]any{"type": kind, "loc": loc, "msg": msg, "input": input}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newID makes a sandbox id as the Docker runtime does: a UUID.
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
