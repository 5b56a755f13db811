package e2btest

import (
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// OpList is GET /v2/sandboxes.
const OpList = "list"

// list answers GET /v2/sandboxes as handlers/sandboxes_list.go
// (GetV2Sandboxes) does: running and paused sandboxes unless state says
// which, those whose metadata has every pair of the metadata filter
// (utils/sandboxes_list.go, parseFilters and FilterSandboxesOnMetadata),
// newest first; a filter that does not parse is a 400.
func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var filter map[string]string
	if raw, ok := q["metadata"]; ok {
		var err error
		if filter, err = parseFilters(raw[0]); err != nil {
			apiError(w, http.StatusBadRequest, "Error parsing metadata")
			return
		}
	}
	states := map[string]bool{stateRunning: true, statePaused: true}
	if raw := q.Get("state"); raw != "" {
		states = map[string]bool{}
		for _, st := range strings.Split(raw, ",") {
			states[st] = true
		}
	}
	s.mu.Lock()
	out := []map[string]any{}
	for _, b := range s.sandboxes {
		if !states[b.state] || !hasAll(b.metadata, filter) {
			continue
		}
		item := map[string]any{"templateID": b.template, "sandboxID": b.id, "clientID": "6532622b",
			"startedAt": b.startedAt.Format(time.RFC3339Nano), "endAt": b.endAt.Format(time.RFC3339), "state": b.state,
			"cpuCount": 2, "memoryMB": 512, "diskSizeMB": 1024, "envdVersion": "0.2.0"}
		if b.metadata != nil {
			item["metadata"] = b.metadata
		}
		out = append(out, item)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i]["startedAt"].(string) > out[j]["startedAt"].(string) })
	writeJSON(w, http.StatusOK, out)
}

// parseFilters is utils/sandboxes_list.go's: the filter unescaped, split
// into key=value pairs, each unescaped again.
func parseFilters(query string) (map[string]string, error) {
	query, err := url.QueryUnescape(query)
	if err != nil {
		return nil, err
	}
	filters := map[string]string{}
	for _, pair := range strings.Split(query, "&") {
		parts := strings.Split(pair, "=")
		if len(parts) != 2 {
			return nil, errors.New("invalid key value pair in query")
		}
		key, err := url.QueryUnescape(parts[0])
		if err != nil {
			return nil, err
		}
		value, err := url.QueryUnescape(parts[1])
		if err != nil {
			return nil, err
		}
		filters[key] = value
	}
	return filters, nil
}

// hasAll is FilterSandboxesOnMetadata's match: no filter matches all; a
// sandbox without metadata matches no filter.
func hasAll(metadata, filter map[string]string) bool {
	if filter == nil {
		return true
	}
	if metadata == nil {
		return false
	}
	for k, v := range filter {
		if got, ok := metadata[k]; !ok || got != v {
			return false
		}
	}
	return true
}
