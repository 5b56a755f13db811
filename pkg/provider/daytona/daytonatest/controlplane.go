package daytonatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// dashboardPage is what Daytona serves for any path outside /api.
const dashboardPage = "<!doctype html><html><head><title>Daytona</title></head><body><div id=\"root\"></div></body></html>\n"

// controlPlaneRoute is one API endpoint: its operation and its handler,
// which runs with s.mu held and the caller's key checked.
type controlPlaneRoute struct {
	op     string
	handle func(w http.ResponseWriter, r *http.Request, k *apiKey)
}

func (s *Server) serveControlPlane(w http.ResponseWriter, r *http.Request) {
	rest, isAPI := strings.CutPrefix(r.URL.Path, "/api/")
	if !isAPI {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(dashboardPage))
		return
	}
	route, id := s.controlPlaneRoute(r.Method, strings.Split(strings.Trim(rest, "/"), "/"))
	if route.op == OpCreateSandbox && !s.waitCreateDelay(r) {
		return // the caller left while the create was slow
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Count(route.op)
	f, faulted := s.faults.Take(route.op)
	if faulted && !f.Lost {
		writeFault(w, r, f, false)
		return
	}
	if faulted {
		// Carry the call out, then lose its answer.
		defer writeFault(w, r, f, false)
		w = httptest.NewRecorder()
	}
	if route.handle == nil {
		apiError(w, r, http.StatusNotFound, fmt.Sprintf("Cannot %s %s", r.Method, r.URL.Path))
		return
	}
	k := s.authorized(r)
	if k == nil {
		apiError(w, r, http.StatusUnauthorized, "Invalid credentials")
		return
	}
	if s.organizationRefusal(w, r, route.op, k) {
		return
	}
	s.autoStop()
	r.SetPathValue("id", id)
	route.handle(w, r, k)
}

// waitCreateDelay holds a create for Options.CreateDelay, outside s.mu so
// that creates overlap and other calls go on; it reports whether the caller
// is still there, and the fake still up.
func (s *Server) waitCreateDelay(r *http.Request) bool {
	if s.opts.CreateDelay <= 0 {
		return true
	}
	// The request's context sees the caller leave only once its body is read.
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	t := time.NewTimer(s.opts.CreateDelay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.life.Done():
		return false
	}
}

func (s *Server) controlPlaneRoute(method string, parts []string) (controlPlaneRoute, string) {
	none := controlPlaneRoute{op: OpOther}
	switch {
	case len(parts) == 2 && parts[0] == "api-keys" && parts[1] == "current" && method == http.MethodGet:
		return controlPlaneRoute{OpGetCurrentAPIKey, s.getCurrentAPIKey}, ""
	case len(parts) == 1 && parts[0] == "sandbox" && method == http.MethodGet:
		return controlPlaneRoute{OpListSandboxes, s.listSandboxes}, ""
	case len(parts) == 1 && parts[0] == "sandbox" && method == http.MethodPost:
		return controlPlaneRoute{OpCreateSandbox, s.createSandbox}, ""
	case len(parts) == 2 && parts[0] == "sandbox" && method == http.MethodGet:
		return controlPlaneRoute{OpGetSandbox, s.getSandbox}, parts[1]
	case len(parts) == 2 && parts[0] == "sandbox" && method == http.MethodDelete:
		return controlPlaneRoute{OpDeleteSandbox, s.deleteSandbox}, parts[1]
	case len(parts) == 2 && parts[0] == "snapshots" && method == http.MethodGet:
		return controlPlaneRoute{OpGetSnapshot, s.getSnapshot}, parts[1]
	case len(parts) == 2 && parts[0] == "snapshots" && method == http.MethodDelete:
		return controlPlaneRoute{OpRemoveSnapshot, s.removeSnapshot}, parts[1]
	case len(parts) == 3 && parts[0] == "sandbox":
		actions := map[string]controlPlaneRoute{
			"POST start":            {OpStartSandbox, s.startSandbox},
			"POST stop":             {OpStopSandbox, s.stopSandbox},
			"POST pause":            {OpPauseSandbox, s.pauseSandbox},
			"POST resize":           {OpResizeSandbox, s.resizeSandbox},
			"POST archive":          {OpArchiveSandbox, s.archiveSandbox},
			"POST snapshot":         {OpCreateSandboxSnapshot, s.createSandboxSnapshot},
			"POST recover":          {OpRecoverSandbox, s.recoverSandbox},
			"POST last-activity":    {OpUpdateLastActivity, s.updateLastActivity},
			"GET toolbox-proxy-url": {OpGetToolboxProxyURL, s.getToolboxProxyURL},
			"PUT labels":            {OpReplaceLabels, s.replaceLabels},
			"POST network-settings": {OpUpdateNetworkSettings, s.updateNetworkSettings},
		}
		if s.opts.NoPause {
			delete(actions, "POST pause")
		}
		if s.opts.NoResize {
			delete(actions, "POST resize")
		}
		if route, ok := actions[method+" "+parts[2]]; ok {
			return route, parts[1]
		}
	}
	return none, ""
}

func (s *Server) getCurrentAPIKey(w http.ResponseWriter, _ *http.Request, k *apiKey) {
	var expires, lastUsed any
	if !k.expiresAt.IsZero() {
		expires = isoTime(k.expiresAt)
	}
	if !k.lastUsed.IsZero() {
		lastUsed = isoTime(k.lastUsed)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"name":        "test key",
		"value":       k.masked(),
		"createdAt":   isoTime(k.createdAt),
		"permissions": k.permissionList(),
		"lastUsedAt":  lastUsed,
		"expiresAt":   expires,
		"userId":      "user-test",
	})
}

// createRequest is the part of Daytona's CreateSandbox the fake reads.
type createRequest struct {
	Snapshot            string            `json:"snapshot"`
	Target              string            `json:"target"`
	Labels              map[string]string `json:"labels"`
	AutoStopInterval    *int              `json:"autoStopInterval"`
	AutoArchiveInterval *int              `json:"autoArchiveInterval"`
	AutoDeleteInterval  *int              `json:"autoDeleteInterval"`
	CPU                 *int              `json:"cpu"`
	GPU                 *int              `json:"gpu"`
	Memory              *int              `json:"memory"`
	Disk                *int              `json:"disk"`
	Env                 map[string]string `json:"env"`
	NetworkBlockAll     *bool             `json:"networkBlockAll"`
	NetworkAllowList    *string           `json:"networkAllowList"`
	DomainAllowList     *string           `json:"domainAllowList"`
}

func (s *Server) createSandbox(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	var req createRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, r, http.StatusBadRequest, err.Error())
		return
	}
	targets := s.opts.Targets
	if len(targets) == 0 {
		targets = []string{"us", "eu"}
	}
	if req.Target == "" {
		req.Target = targets[0]
	}
	switch {
	case req.CPU != nil || req.GPU != nil || req.Memory != nil || req.Disk != nil:
		apiError(w, r, http.StatusBadRequest, "Cannot specify Sandbox resources when using a snapshot")
		return
	case s.opts.LimitedNetworkEgress && (req.NetworkBlockAll != nil || req.NetworkAllowList != nil || req.DomainAllowList != nil):
		apiError(w, r, http.StatusBadRequest, networkRestricted)
		return
	case networkAllowListError(req.NetworkAllowList) != "":
		apiError(w, r, http.StatusBadRequest, networkAllowListError(req.NetworkAllowList))
		return
	case req.AutoArchiveInterval != nil && *req.AutoArchiveInterval < 0:
		// services/sandbox.service.ts resolveAutoArchiveInterval
		apiError(w, r, http.StatusBadRequest, "Auto-archive interval must be non-negative")
		return
	case !slices.Contains(targets, req.Target):
		apiError(w, r, http.StatusNotFound, "Region not found")
		return
	case s.regionClosed(req.Target) != "":
		apiError(w, r, http.StatusForbidden, s.regionClosed(req.Target))
		return
	case req.Snapshot != "" && len(s.opts.Snapshots) > 0 && !slices.Contains(s.opts.Snapshots, req.Snapshot) && s.snapshots[req.Snapshot] == nil:
		apiError(w, r, http.StatusBadRequest, fmt.Sprintf("Snapshot %s not found. Did you add it through the Daytona Dashboard?", req.Snapshot))
		return
	}
	sb := &sandbox{
		id:          newSandboxID(),
		snapshot:    req.Snapshot,
		target:      req.Target,
		labels:      req.Labels,
		autoStop:    intOr(req.AutoStopInterval, 15),
		autoArchive: archiveInterval(req.AutoArchiveInterval),
		env:         req.Env,
		network:     Network{BlockAll: req.NetworkBlockAll != nil && *req.NetworkBlockAll, AllowList: strOr(req.NetworkAllowList), DomainAllowList: strOr(req.DomainAllowList)},
		autoDelete:  intOr(req.AutoDeleteInterval, -1),
		createdAt:   s.now(),
		resources:   s.snapshotResources(),
	}
	if sb.snapshot == "" {
		sb.snapshot = "daytonaio/sandbox:0.5.0"
	}
	if sb.labels == nil {
		sb.labels = map[string]string{}
	}
	if refusal := s.quotaRefusal(sb); refusal != "" {
		apiError(w, r, http.StatusBadRequest, refusal)
		return
	}
	if s.forward == nil {
		sb.home = filepath.Join(s.dir, sb.id, "home")
		sb.tmp = filepath.Join(s.dir, sb.id, "tmp")
		err := makeSandboxDirs(sb.home, sb.tmp)
		if from := s.snapshots[req.Snapshot]; err == nil && from != nil && from.files != "" {
			err = fakekit.CopyTree(from.files, sb.home) // a sandbox from a snapshot starts with its files
		}
		if err != nil {
			apiError(w, r, http.StatusInternalServerError, "An unexpected error occurred.")
			return
		}
	}
	s.sandboxes[sb.id] = sb
	// Daytona answers with the state from before its own wait for "started".
	s.move(sb, "started", "creating", "started")
	writeJSON(w, http.StatusOK, s.dto(sb))
}

// maxAutoArchiveInterval is the API's MAX_AUTO_ARCHIVE_INTERVAL default
// (config/configuration.ts).
const maxAutoArchiveInterval = 43200

// archiveInterval is services/sandbox.service.ts resolveAutoArchiveInterval:
// absent keeps the entity's default of 7 days, 0 is the longest, and
// longer than the longest is cut to it.
func archiveInterval(p *int) int {
	switch {
	case p == nil:
		return 10080
	case *p == 0:
		return maxAutoArchiveInterval
	default:
		return min(*p, maxAutoArchiveInterval)
	}
}

// networkAllowListError is sandbox/utils/network-validation.util.ts
// validateNetworkAllowList: IPv4 networks with a prefix length, at most 10.
func networkAllowListError(list *string) string {
	if list == nil {
		return ""
	}
	networks := strings.Split(*list, ",")
	for _, network := range networks {
		network = strings.TrimSpace(network)
		if network == "" {
			continue
		}
		ip, prefix, _ := strings.Cut(network, "/")
		if a, err := netip.ParseAddr(ip); err != nil || !a.Is4() {
			return fmt.Sprintf(`Invalid IP address: "%s" in network "%s". Must be a valid IPv4 address`, ip, network)
		}
		if prefix == "" {
			return fmt.Sprintf(`Invalid network format: "%s". Missing CIDR prefix length (e.g., /24)`, network)
		}
		if n, err := strconv.Atoi(prefix); err != nil || n < 0 || n > 32 {
			return fmt.Sprintf("Invalid CIDR prefix length: %s. Prefix must be between 0 and 32", network)
		}
	}
	if len(networks) > 10 {
		return "Network allow list cannot contain more than 10 networks"
	}
	return ""
}

func strOr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

func (s *Server) listSandboxes(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	var filter map[string]string
	if raw := r.URL.Query().Get("labels"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &filter); err != nil {
			apiError(w, r, http.StatusBadRequest, "Invalid labels JSON format")
			return
		}
	}
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit <= 0 {
		limit = 100
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
	var matching []*sandbox
	for _, sb := range s.sandboxes {
		if !sb.destroyed && hasLabels(sb.labels, filter) {
			matching = append(matching, sb)
		}
	}
	slices.SortFunc(matching, func(a, b *sandbox) int { return a.createdAt.Compare(b.createdAt) })
	items := []map[string]any{}
	for i := start; i < len(matching) && i < start+limit; i++ {
		items = append(items, s.dto(matching[i]))
	}
	if s.opts.BareList {
		writeJSON(w, http.StatusOK, items)
		return
	}
	var next any
	if start+limit < len(matching) {
		next = strconv.Itoa(start + limit)
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items, "nextCursor": next})
}

func hasLabels(labels, filter map[string]string) bool {
	for k, v := range filter {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// sandboxOr404 finds the path's sandbox, or answers as Daytona does when it has none.
func (s *Server) sandboxOr404(w http.ResponseWriter, r *http.Request) *sandbox {
	id := r.PathValue("id")
	sb := s.find(id)
	if sb == nil {
		apiError(w, r, http.StatusNotFound, fmt.Sprintf("Sandbox with ID or name %s not found", id))
	}
	return sb
}

func (s *Server) getSandbox(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	s.look(sb)
	if sb.destroyed {
		apiError(w, r, http.StatusNotFound, fmt.Sprintf("Sandbox with ID or name %s not found", sb.id))
		return
	}
	writeJSON(w, http.StatusOK, s.dto(sb))
}

func (s *Server) startSandbox(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	if sb.State == "started" && sb.desired == "started" {
		writeJSON(w, http.StatusOK, s.dto(sb))
		return
	}
	if sb.State == "error" || sb.State == "build_failed" {
		apiError(w, r, http.StatusBadRequest, "Sandbox is in an errored state")
		return
	}
	// Only an archiving sandbox may be started while it changes state.
	if sb.Moving() && sb.State != "archiving" {
		apiError(w, r, http.StatusConflict, "Sandbox state change in progress")
		return
	}
	if sb.State != "started" {
		if refusal := s.quotaRefusal(sb); refusal != "" {
			apiError(w, r, http.StatusBadRequest, refusal)
			return
		}
	}
	switch sb.State {
	case "stopped", "paused":
		s.move(sb, "started", "starting", "started")
	case "archived", "archiving":
		// Restoring from the archive: Daytona answers at once, still "archived".
		s.move(sb, "started", "archived", "restoring", "started")
	default:
		apiError(w, r, http.StatusBadRequest, "Sandbox is not in valid state")
		return
	}
	writeJSON(w, http.StatusOK, s.dto(sb))
}

func (s *Server) stopSandbox(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	switch {
	case sb.State == "error" || sb.State == "build_failed":
		apiError(w, r, http.StatusBadRequest, "Sandbox is in an errored state")
	case sb.Moving():
		apiError(w, r, http.StatusConflict, "Sandbox state change in progress")
	case sb.State != "started" && sb.State != "paused":
		apiError(w, r, http.StatusBadRequest, "Sandbox is not in a stoppable state")
	default:
		s.move(sb, "stopped", "stopping", "stopped")
		writeJSON(w, http.StatusOK, s.dto(sb))
	}
}

func (s *Server) archiveSandbox(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	switch {
	case sb.State == "error" || sb.State == "build_failed":
		apiError(w, r, http.StatusBadRequest, "Sandbox is in an errored state")
	case sb.Moving():
		apiError(w, r, http.StatusConflict, "Sandbox state change in progress")
	case sb.State != "stopped":
		apiError(w, r, http.StatusBadRequest, "Sandbox is not stopped")
	default:
		s.move(sb, "archived", "archiving", "archived")
		writeJSON(w, http.StatusOK, s.dto(sb))
	}
}

// recoverSandbox mends a recoverable error, as recover in Daytona's
// apps/api/src/sandbox/services/sandbox.service.ts does: the sandbox goes
// back to stopped, its error cleared, and is started again.
func (s *Server) recoverSandbox(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	switch {
	case !sb.recoverable:
		apiError(w, r, http.StatusBadRequest, "Sandbox is not in a recoverable state")
	case sb.State != "error":
		apiError(w, r, http.StatusBadRequest, "Sandbox must be in error state to recover")
	default:
		sb.errorReason, sb.recoverable = "", false
		s.move(sb, "started", "stopped", "starting", "started")
		writeJSON(w, http.StatusOK, s.dto(sb))
	}
}

// deleteSandbox answers at once with the sandbox "destroying": Daytona
// destroys it in the background.
func (s *Server) deleteSandbox(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	if sb.Moving() {
		apiError(w, r, http.StatusConflict, "Sandbox state change in progress")
		return
	}
	sb.desired = "destroyed"
	sb.Go(s.opts.Transition, "destroying", "destroyed")
	writeJSON(w, http.StatusOK, s.dto(sb))
}

func (s *Server) updateLastActivity(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	sb.lastActivity = s.now()
	w.WriteHeader(http.StatusCreated)
}

func (s *Server) getToolboxProxyURL(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	if sb := s.sandboxOr404(w, r); sb != nil {
		writeJSON(w, http.StatusOK, map[string]string{"url": s.ToolboxProxyURL()})
	}
}

// replaceLabels replaces a sandbox's labels whole and answers them, as
// Daytona's replaceLabels does (apps/api/src/sandbox/controllers/sandbox.controller.ts,
// services/sandbox.service.ts).
func (s *Server) replaceLabels(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	var req struct {
		Labels map[string]string `json:"labels"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Labels == nil {
		apiError(w, r, http.StatusBadRequest, "labels must be an object")
		return
	}
	sb.labels = req.Labels
	writeJSON(w, http.StatusOK, map[string]any{"labels": sb.labels})
}
