package opensandboxtest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strings"
	"time"
)

// labels is a copy of the sandbox's metadata now.
func (sb *sandbox) labels() map[string]string {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return maps.Clone(sb.metadata)
}

// patchMetadata answers PATCH /sandboxes/{id}/metadata as the server does
// (server/opensandbox_server/api/lifecycle.py patch_sandbox_metadata, and
// services/docker/docker_service.py's): a JSON merge patch (RFC 7396) of
// string values, where a null deletes a key and an absent key stays; the
// sandbox is looked up first (404), then reserved keys and the label rules
// are checked on the values added (400), and the answer is 200 with the
// whole sandbox.
func (s *Server) patchMetadata(w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("id")
	body, _ := io.ReadAll(r.Body)
	var patch map[string]*string
	if err := json.Unmarshal(body, &patch); err != nil || patch == nil {
		validationError(w, detail("dict_type", []any{"body"}, "Input should be a valid dictionary", string(body)))
		return
	}
	sb, ok := s.find(id)
	if !ok {
		notFound(w, id)
		return
	}
	additions := map[string]string{}
	for key, value := range patch {
		if strings.HasPrefix(key, reservedLabelPrefix) {
			apiError(w, http.StatusBadRequest, "INVALID_METADATA_LABEL",
				fmt.Sprintf("Metadata key '%s' is reserved (opensandbox.io/ prefix).", key))
			return
		}
		if value != nil {
			additions[key] = *value
		}
	}
	if code, msg := checkMetadata(additions); code != "" {
		apiError(w, http.StatusBadRequest, code, msg)
		return
	}
	sb.mu.Lock()
	if sb.metadata == nil {
		sb.metadata = map[string]string{}
	}
	for key, value := range patch {
		if value == nil {
			delete(sb.metadata, key)
		} else {
			sb.metadata[key] = *value
		}
	}
	sb.mu.Unlock()
	writeJSON(w, http.StatusOK, s.describe(sb, time.Now()))
}
