package gateway

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/jailfs"
)

// sandboxSpec is what a sandbox is created with, on create and on a restore that re-creates it.
type sandboxSpec = wire.SandboxSpec

func checkSpec(sp sandboxSpec, cfg Config) []FieldError {
	errs := checkLabels(sp.Labels)
	errs = append(errs, checkNetwork(requested(sp))...)
	errs = append(errs, checkResources(sp.Resources, cfg)...)
	if sp.GCSBucket != "" {
		errs = append(errs, checkBucket(sp.GCSBucket)...)
	}
	return append(errs, checkPrefix(sp.SnapshotPrefix)...)
}

// sandboxInfo is the sandbox a spec describes; egress needs both the
// caller's wish and the deployment's leave (GATEWAY_ALLOW_EGRESS bounds
// every sandbox's network from above: without it none has any).
func (s *Server) sandboxInfo(id string, sp sandboxSpec) Sandbox {
	now := time.Now().UTC()
	labels := sp.Labels
	if labels == nil {
		labels = map[string]string{}
	}
	network := requested(sp)
	if !s.cfg.AllowEgress {
		network = offlineNetwork()
	}
	return Sandbox{
		ID: id, WorkDir: WorkDir,
		AllowEgress: !isOffline(network), EgressRequested: !isOffline(requested(sp)),
		Network: network, Resources: sp.Resources,
		GCSBucket: sp.GCSBucket, SnapshotPrefix: sp.SnapshotPrefix, Labels: labels,
		CreatedAt: now, LastActiveAt: now,
	}
}

// createRequest is a create's body: the spec, and what to start from.
type createRequest = wire.CreateRequest

// objectRef names one object in a bucket.
type objectRef = wire.ObjectRef

func checkObjectRef(o objectRef) []FieldError {
	var errs []FieldError
	for _, e := range checkBucket(o.GCSBucket) {
		errs = append(errs, FieldError{Field: "from." + e.Field, Message: e.Message})
	}
	switch {
	case o.Object == "":
		errs = append(errs, FieldError{Field: "from.object", Message: "is required"})
	case len(o.Object) > 1024, strings.HasPrefix(o.Object, "/"), strings.ContainsAny(o.Object, "\r\n\x00"):
		errs = append(errs, FieldError{Field: "from.object", Message: "must be an object name of at most 1024 characters, relative, without line breaks"})
	}
	return errs
}

func (s *Server) createSandbox(w http.ResponseWriter, r *http.Request) error {
	var q createRequest
	if err := decodeJSON(w, r, &q, true); err != nil {
		return err
	}
	errs := checkSpec(q.SandboxSpec, s.cfg)
	if q.From != nil {
		errs = append(errs, checkObjectRef(*q.From)...)
	}
	if len(errs) > 0 {
		return invalid(errs)
	}
	user, err := s.sandboxes.users.take()
	if err != nil {
		return failure(http.StatusServiceUnavailable, auxilia.CodeUnavailable, err.Error()).about(wire.SubjectCapacity)
	}
	staged := ""
	if q.From != nil {
		if _, staged, _, _, err = s.stageObject(r.Context(), q.From.GCSBucket, q.From.Object, user); err != nil {
			s.sandboxes.users.put(user)
			return err
		}
	}
	sb, err := s.sandboxes.create(s.sandboxInfo(newID(), q.SandboxSpec), staged, user)
	if err != nil {
		if staged != "" {
			_ = jailfs.RemoveAll(staged)
		}
		return err
	}
	info := sb.view(false)
	s.log.Info("created sandbox", "id", info.ID, "egress", info.AllowEgress)
	w.Header().Set("Location", "/sandboxes/"+info.ID)
	writeJSON(w, http.StatusCreated, info)
	return nil
}

// sandboxList is a page of sandboxes.
type sandboxList struct {
	Items      []Sandbox `json:"items"`
	NextCursor string    `json:"next_cursor"`
}

func (s *Server) listSandboxes(w http.ResponseWriter, r *http.Request) error {
	limit := 100
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return invalid([]FieldError{{Field: "limit", Message: "must be a number from 1 to 1000"}})
		}
		limit = n
	}
	cursor := r.URL.Query().Get("cursor")
	items, next := s.sandboxes.list(cursor, limit)
	writeJSON(w, http.StatusOK, sandboxList{Items: items, NextCursor: next})
	return nil
}

// lookup finds the sandbox a path names, or answers 404.
func (s *Server) lookup(r *http.Request) (*sandbox, error) {
	sb, ok := s.sandboxes.get(r.PathValue("id"))
	if !ok {
		return nil, failure(http.StatusNotFound, auxilia.CodeNotFound, "no sandbox "+r.PathValue("id")+" on this gateway").about(wire.SubjectSandbox)
	}
	return sb, nil
}

func (s *Server) getSandbox(w http.ResponseWriter, r *http.Request) error {
	sb, err := s.lookup(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sb.view(false))
	return nil
}

// keepAlive marks a sandbox as in use, so that the idle reaper leaves it.
func (s *Server) keepAlive(w http.ResponseWriter, r *http.Request) error {
	sb, err := s.lookup(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sb.view(true))
	return nil
}

// deleteSandbox is idempotent: a sandbox that is already gone is deleted too.
func (s *Server) deleteSandbox(w http.ResponseWriter, r *http.Request) error {
	if s.sandboxes.remove(r.PathValue("id"), s.scratch("trash")) {
		s.log.Info("deleted sandbox", "id", r.PathValue("id"))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
