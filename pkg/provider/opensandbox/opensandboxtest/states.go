package opensandboxtest

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// State is a container state a test puts a sandbox in, as the Docker
// runtime reports it (server/opensandbox_server/services/docker/
// docker_service.py, _container_to_sandbox): the controller keeps such a
// sandbox, answers get and renew-expiration for it as for any other, and
// only forgets it when it is deleted or expires.
type State string

// The states a running sandbox can fall into.
const (
	// Paused: the container is frozen (docker pause). Calls to its execd
	// are taken and never answered until it resumes, as a frozen process
	// answers nothing.
	Paused State = "Paused"
	// Failed: the container exited with a non-zero code, as after a host or
	// Docker restart.
	Failed State = "Failed"
	// Terminated: the container exited with code 0.
	Terminated State = "Terminated"
	// Unknown: Docker reports a state the server does not map ("removing", …).
	Unknown State = "Unknown"
)

// phase is a state set by a test, with the server's reason and message.
type phase struct {
	state, reason, message string
	at                     time.Time
}

// phases are the server's words for each state.
var phases = map[State]phase{
	Paused:     {state: "Paused", reason: "CONTAINER_PAUSED", message: "Sandbox container is paused."},
	Failed:     {state: "Failed", reason: "CONTAINER_EXITED_ERROR", message: "Sandbox container exited with code 137."},
	Terminated: {state: "Terminated", reason: "CONTAINER_EXITED", message: "Sandbox container exited successfully."},
	Unknown:    {state: "Unknown", reason: "CONTAINER_STATE_UNKNOWN", message: "Sandbox container is in state 'removing'."},
}

// SetState puts sandbox id in state st. A container that leaves Running
// for good (Failed, Terminated, Unknown) loses its commands and its execd
// and cannot come back; a paused one resumes on POST /sandboxes/{id}/resume.
func (s *Server) SetState(id string, st State) {
	sb, ok := s.find(id)
	p, known := phases[st]
	if !ok || !known {
		panic(fmt.Sprintf("opensandboxtest: no sandbox %q, or no state %q", id, st))
	}
	p.at = time.Now()
	sb.mu.Lock()
	sb.phase = p
	if st == Paused {
		sb.resumed = make(chan struct{})
	}
	sb.mu.Unlock()
	if st != Paused {
		sb.stop()
	}
}

// StopExecd makes sandbox id's execd stop answering while the container
// runs on (its process killed, say): the state still says Running.
func (s *Server) StopExecd(id string) {
	if sb, ok := s.find(id); ok {
		sb.execd.CloseClientConnections()
		sb.execd.Close()
	}
}

func (sb *sandbox) currentPhase() phase {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.phase
}

// exited says whether the container has stopped for good.
func (sb *sandbox) exited() bool {
	p := sb.currentPhase()
	return p.state != "" && p.state != string(Paused)
}

// holdWhilePaused keeps a call to a paused container's execd waiting
// until the container resumes or the caller leaves; false when it left.
func (sb *sandbox) holdWhilePaused(ctx context.Context) bool {
	sb.mu.Lock()
	resumed := sb.resumed
	paused := sb.phase.state == string(Paused)
	sb.mu.Unlock()
	if !paused {
		return true
	}
	select {
	case <-resumed:
		return true
	case <-ctx.Done():
		return false
	case <-sb.ctx.Done():
		return false
	}
}

// pause freezes a running container, as pause_sandbox does
// (services/docker/docker_service.py): 409 SANDBOX_NOT_RUNNING for one
// whose container is not running. Docker counts a paused container as
// running, so pausing it again reaches Docker's own refusal, which the
// server answers as a 500.
func (s *Server) pause(w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("id")
	sb, ok := s.find(id)
	if !ok {
		notFound(w, id)
		return
	}
	switch sb.state(time.Now()).State {
	case "Running":
		s.SetState(id, Paused)
		w.WriteHeader(http.StatusAccepted)
	case string(Paused):
		apiError(w, http.StatusInternalServerError, "DOCKER::SANDBOX_PAUSE_FAILED",
			"Failed to pause sandbox container: 409 Client Error for pause: Conflict (\"Container "+id+" is already paused\")")
	default:
		apiError(w, http.StatusConflict, "DOCKER::SANDBOX_NOT_RUNNING", "Sandbox is not in a running state.")
	}
}

// resume unfreezes a paused container, as resume_sandbox does: 409
// SANDBOX_NOT_PAUSED for any other. Docker's unpause is done when it
// answers, so the next get says Running.
func (s *Server) resume(w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("id")
	sb, ok := s.find(id)
	if !ok {
		notFound(w, id)
		return
	}
	sb.mu.Lock()
	paused := sb.phase.state == string(Paused)
	if paused {
		sb.phase = phase{}
		close(sb.resumed)
	}
	sb.mu.Unlock()
	if !paused {
		apiError(w, http.StatusConflict, "DOCKER::SANDBOX_NOT_PAUSED", "Sandbox is not in a paused state.")
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// SetExpiry moves sandbox id's expiry to at, as though its lease had
// been renewed (or not) long ago.
func (s *Server) SetExpiry(id string, at time.Time) {
	if sb, ok := s.find(id); ok {
		sb.setExpiry(at)
	}
}

// RefuseCreates makes every create from now on fail as the Docker runtime
// fails one it cannot start, with Docker's own reason ("" to stop): 500
// DOCKER::SANDBOX_START_FAILED, "Failed to create or start container: …"
// (server/opensandbox_server/services/docker/container_ops.py, where
// create_container raises; the code is CONTAINER_START_FAILED in
// services/constants.py). Nothing is left behind.
func (s *Server) RefuseCreates(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusal = reason
}

// refused answers a create the runtime cannot start; false when it can.
func (s *Server) refused(w http.ResponseWriter) bool {
	s.mu.Lock()
	reason := s.refusal
	s.mu.Unlock()
	if reason == "" {
		return false
	}
	apiError(w, http.StatusInternalServerError, "DOCKER::SANDBOX_START_FAILED", "Failed to create or start container: "+reason)
	return true
}

// Paused reports whether sandbox id is live and paused.
func (s *Server) Paused(id string) bool {
	sb, ok := s.find(id)
	return ok && sb.currentPhase().state == string(Paused)
}
