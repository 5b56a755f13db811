package opensandboxtest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// apiKeyHeader carries the controller's API key.
const apiKeyHeader = "OPEN-SANDBOX-API-KEY"

// execdPort is where execd listens inside every sandbox.
const execdPort = 44772

// lifecycleRoutes serves the lifecycle API at / and at /v1, as the server does.
func (s *Server) lifecycleRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "healthy"})
	})
	for _, prefix := range []string{"", "/v1"} {
		mux.Handle("GET "+prefix+"/sandboxes", s.api(OpList, s.list))
		mux.Handle("POST "+prefix+"/sandboxes", s.api(OpCreate, s.create))
		mux.Handle("GET "+prefix+"/sandboxes/{id}", s.api(OpGet, s.get))
		mux.Handle("DELETE "+prefix+"/sandboxes/{id}", s.api(OpDelete, s.delete))
		mux.Handle("POST "+prefix+"/sandboxes/{id}/renew-expiration", s.api(OpRenew, s.renew))
		mux.Handle("POST "+prefix+"/sandboxes/{id}/pause", s.api(OpPause, s.pause))
		mux.Handle("POST "+prefix+"/sandboxes/{id}/resume", s.api(OpResume, s.resume))
		mux.Handle("GET "+prefix+"/sandboxes/{id}/endpoints/{port}", s.api(OpEndpoint, s.endpoint))
		if !s.opts.NoMetadataPatch {
			mux.Handle("PATCH "+prefix+"/sandboxes/{id}/metadata", s.api(OpPatchMetadata, s.patchMetadata))
		}
		s.snapshotRoutes(mux, prefix)
		// The proxy route is exempt from the API key, as in the server's auth middleware.
		mux.HandleFunc(prefix+"/sandboxes/{id}/proxy/{port}", s.proxyTo)
		mux.HandleFunc(prefix+"/sandboxes/{id}/proxy/{port}/{path...}", s.proxyTo)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if s.authorized(w, r) {
			writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
		}
	})
	return mux
}

// api wraps a lifecycle handler: count the call, check the key, then
// misbehave if a fault says so.
func (s *Server) api(op Op, h func(http.ResponseWriter, *http.Request, Fault)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fault, faulty := s.begin(op)
		if !s.authorized(w, r) {
			return
		}
		if faulty && fault.Lost {
			h(httptest.NewRecorder(), r, fault)
			if !s.misbehave(w, r, fault, lifecycleDialect) {
				fakekit.Drop(w)
			}
			return
		}
		if faulty && s.misbehave(w, r, fault, lifecycleDialect) {
			return
		}
		h(slowed(w, r, fault), r, fault)
	})
}

// authorized checks the API key as the server's middleware does.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.APIKey == "" {
		return true
	}
	switch key := r.Header.Get(apiKeyHeader); {
	case key == "":
		apiError(w, http.StatusUnauthorized, "MISSING_API_KEY",
			"Authentication credentials are missing. Provide API key via "+apiKeyHeader+" header.")
		return false
	case key != s.opts.APIKey:
		apiError(w, http.StatusUnauthorized, "INVALID_API_KEY",
			"Authentication credentials are invalid. Check your API key and try again.")
		return false
	}
	return true
}

func notFound(w http.ResponseWriter, id string) {
	apiError(w, http.StatusNotFound, "DOCKER::SANDBOX_NOT_FOUND", fmt.Sprintf("Sandbox %s not found.", id))
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, fault Fault) {
	body, _ := io.ReadAll(r.Body)
	var req CreateRequest
	if err := json.Unmarshal(body, &req); err != nil {
		validationError(w, detail("json_invalid", []any{"body", 0}, "JSON decode error", string(body)))
		return
	}
	if !checkModel(w, req) || !s.checkService(w, req) || s.refused(w) {
		return
	}
	var from *snapshot
	if req.SnapshotID != "" {
		var ok bool
		if from, ok = s.restoreFrom(w, req.SnapshotID); !ok {
			return
		}
	}
	now := time.Now()
	id := newID()
	sb, err := newSandbox(s, id, req, now, fault.NeverReady)
	if err == nil && from != nil {
		if err = fakekit.CopyTree(from.files, sb.root); err != nil {
			sb.stop()
		}
	}
	if err != nil {
		apiError(w, http.StatusInternalServerError, "DOCKER::SANDBOX_START_FAILED", err.Error())
		return
	}
	s.mu.Lock()
	s.sandboxes[id] = sb
	s.mu.Unlock()
	writeJSON(w, http.StatusAccepted, apiSandbox{
		ID:         id,
		Status:     sb.state(now),
		Metadata:   req.Metadata,
		Entrypoint: req.Entrypoint,
		ExpiresAt:  apiTime(sb.expiry()),
		CreatedAt:  apiTime(sb.createdAt),
	})
}

func (s *Server) describe(sb *sandbox, now time.Time) apiSandbox {
	return apiSandbox{
		ID:         sb.id,
		Image:      sb.request.Image,
		Status:     sb.state(now),
		Metadata:   sb.labels(),
		Entrypoint: sb.request.Entrypoint,
		ExpiresAt:  apiTime(sb.expiry()),
		CreatedAt:  apiTime(sb.createdAt),
	}
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("id")
	sb, ok := s.find(id)
	if !ok {
		notFound(w, id)
		return
	}
	writeJSON(w, http.StatusOK, s.describe(sb, time.Now()))
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, _ Fault) {
	q := r.URL.Query()
	page, ok := queryInt(w, q, "page", 1, 1, 0)
	if !ok {
		return
	}
	size, ok := queryInt(w, q, "pageSize", 20, 1, 200)
	if !ok {
		return
	}
	states := map[string]bool{} // matched without regard to case, as the server does
	for _, st := range q["state"] {
		states[strings.ToLower(st)] = true
	}
	labels, err := parseMetadataFilter(q.Get("metadata"))
	if err != nil {
		apiError(w, http.StatusBadRequest, "INVALID_METADATA_FORMAT", "Invalid metadata format: "+err.Error())
		return
	}
	now := time.Now()
	var items []apiSandbox
	for _, id := range s.Sandboxes() {
		if sb, ok := s.find(id); ok {
			if d := s.describe(sb, now); (len(states) == 0 || states[strings.ToLower(d.Status.State)]) && hasLabels(d.Metadata, labels) {
				items = append(items, d)
			}
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].CreatedAt > items[j].CreatedAt })
	total := len(items)
	pages := (total + size - 1) / size
	start := min((page-1)*size, total)
	end := min(start+size, total)
	writeJSON(w, http.StatusOK, map[string]any{
		"items":      append([]apiSandbox{}, items[start:end]...),
		"pagination": apiPagination{Page: page, PageSize: size, TotalItems: total, TotalPages: pages, HasNextPage: page < pages},
	})
}

// parseMetadataFilter reads the metadata filter as the server does, with
// Python's parse_qsl(keep_blank_values=True, strict_parsing=True): fields
// joined by "&", each "key=value", both unquoted ("+" is a space).
func parseMetadataFilter(raw string) (map[string]string, error) {
	labels := map[string]string{}
	if raw == "" {
		return labels, nil
	}
	for _, field := range strings.Split(raw, "&") {
		key, value, ok := strings.Cut(field, "=")
		if !ok {
			return nil, fmt.Errorf("bad query field: '%s'", field)
		}
		labels[unquotePlus(key)] = unquotePlus(value)
	}
	return labels, nil
}

// unquotePlus decodes like Python's unquote_plus, which leaves a malformed
// escape as it is instead of failing.
func unquotePlus(s string) string {
	if out, err := url.QueryUnescape(s); err == nil {
		return out
	}
	return strings.ReplaceAll(s, "+", " ")
}

// hasLabels says whether a sandbox's metadata holds every wanted pair.
func hasLabels(metadata, wanted map[string]string) bool {
	for k, v := range wanted {
		if got, ok := metadata[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// queryInt reads an integer query parameter as FastAPI validates it
// (max 0: no upper bound); it reports false after answering 422.
func queryInt(w http.ResponseWriter, q map[string][]string, name string, def, lo, hi int) (int, bool) {
	raw := q[name]
	if len(raw) == 0 {
		return def, true
	}
	loc := []any{"query", name}
	n, err := strconv.Atoi(raw[0])
	switch {
	case err != nil:
		validationError(w, detail("int_parsing", loc, "Input should be a valid integer, unable to parse string as an integer", raw[0]))
		return 0, false
	case n < lo:
		validationError(w, detail("greater_than_equal", loc, fmt.Sprintf("Input should be greater than or equal to %d", lo), raw[0]))
		return 0, false
	case hi > 0 && n > hi:
		validationError(w, detail("less_than_equal", loc, fmt.Sprintf("Input should be less than or equal to %d", hi), raw[0]))
		return 0, false
	}
	return n, true
}

func (s *Server) delete(w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("id")
	sb, ok := s.find(id)
	if !ok {
		notFound(w, id)
		return
	}
	s.mu.Lock()
	delete(s.sandboxes, id)
	s.mu.Unlock()
	sb.stop()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) renew(w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("id")
	body, _ := io.ReadAll(r.Body)
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		validationError(w, detail("json_invalid", []any{"body", 0}, "JSON decode error", string(body)))
		return
	}
	raw, ok := req["expiresAt"]
	if !ok {
		validationError(w, detail("missing", []any{"body", "expiresAt"}, "Field required", req))
		return
	}
	expiresAt, ok := parseDatetime(raw)
	if !ok {
		validationError(w, detail("datetime_from_date_parsing", []any{"body", "expiresAt"},
			"Input should be a valid datetime or date, invalid character in year", string(raw)))
		return
	}
	sb, found := s.find(id)
	switch {
	case !found:
		notFound(w, id)
	case !expiresAt.After(time.Now()):
		apiError(w, http.StatusBadRequest, "DOCKER::INVALID_EXPIRATION", "New expiration time must be in the future.")
	case sb.request.Timeout == nil:
		apiError(w, http.StatusConflict, "DOCKER::INVALID_EXPIRATION",
			fmt.Sprintf("Sandbox %s does not have automatic expiration enabled.", id))
	default:
		sb.setExpiry(expiresAt)
		writeJSON(w, http.StatusOK, map[string]string{"expiresAt": apiTime(expiresAt)})
	}
}

// parseDatetime reads a JSON string as pydantic reads a datetime: RFC 3339,
// or without a zone (then UTC).
func parseDatetime(raw json.RawMessage) (time.Time, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func (s *Server) endpoint(w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("id")
	rawPort := r.PathValue("port")
	port, err := strconv.Atoi(rawPort)
	if err != nil {
		validationError(w, detail("int_parsing", []any{"path", "port"},
			"Input should be a valid integer, unable to parse string as an integer", rawPort))
		return
	}
	useProxy := false
	if raw := r.URL.Query().Get("use_server_proxy"); raw != "" {
		var ok bool
		if useProxy, ok = parseBool(raw); !ok {
			validationError(w, detail("bool_parsing", []any{"query", "use_server_proxy"},
				"Input should be a valid boolean, unable to interpret input", raw))
			return
		}
	}
	sb, found := s.find(id)
	switch {
	case !found:
		notFound(w, id)
		return
	case port < 1 || port > 65535:
		apiError(w, http.StatusBadRequest, "DOCKER::INVALID_PORT", "Port must be between 1 and 65535.")
		return
	}
	var endpoint string
	switch {
	case useProxy:
		base := r.Host
		if s.opts.EIP != "" {
			base = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(s.opts.EIP, "/"), "https://"), "http://")
		}
		endpoint = fmt.Sprintf("%s/sandboxes/%s/proxy/%d", base, id, port)
	case port == egressPort && sb.sidecar != nil:
		endpoint = strings.TrimPrefix(sb.sidecar.server.URL, "http://")
	case port != execdPort:
		endpoint = fmt.Sprintf("127.0.0.1:%d", port) // nothing else listens in a fake sandbox
	case s.opts.Execd != "":
		endpoint = s.opts.Execd
	case s.opts.BridgeNetwork:
		endpoint = fmt.Sprintf("%s/proxy/%d", strings.TrimPrefix(sb.execd.URL, "http://"), port)
	default:
		endpoint = strings.TrimPrefix(sb.execd.URL, "http://")
	}
	answer := map[string]any{"endpoint": endpoint}
	headers := maps.Clone(s.opts.EndpointHeaders)
	if port == egressPort && sb.sidecar != nil && !useProxy {
		// services/docker/networking.py, _attach_egress_auth_headers: the
		// direct endpoint of port 18080 names the sidecar's token; the
		// proxied one does not.
		if headers == nil {
			headers = map[string]string{}
		}
		headers[egressAuthHeader] = sb.sidecar.token
	}
	if len(headers) > 0 {
		answer["headers"] = headers
	}
	writeJSON(w, http.StatusOK, answer)
}

// parseBool reads a boolean as FastAPI does.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on", "t", "y":
		return true, true
	case "false", "0", "no", "off", "f", "n":
		return false, true
	}
	return false, false
}
