package daytonatest

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// sandbox is one fake sandbox. Its state is what Daytona shows (the API
// derives "stopping", "destroying", … from a state and a desired state; the
// fake keeps the shown one), on its way through the states to come, each
// lasting Options.Transition looks.
type sandbox struct {
	fakekit.Transit
	id           string
	desired      string
	labels       map[string]string
	snapshot     string
	target       string
	autoStop     int // minutes; 0 = never
	autoArchive  int
	autoDelete   int
	env          map[string]string
	network      Network
	createdAt    time.Time
	updatedAt    time.Time
	lastActivity time.Time
	errorReason  string
	recoverable  bool   // an error POST /sandbox/{id}/recover can mend
	home, tmp    string // host folders seen as WorkDir and /tmp inside
	destroyed    bool
	snapshotting *snapshot // being made from it
	resources    Resources
}

// move sets the sandbox on its way through states, ending in the last one,
// with desired as its desired state. Without transitions it gets there at once.
func (s *Server) move(sb *sandbox, desired string, states ...string) {
	sb.desired = desired
	sb.updatedAt = s.now()
	if s.opts.Transition <= 0 {
		sb.Set(states[len(states)-1])
		s.settle(sb, sb.State)
		return
	}
	sb.Go(s.opts.Transition, states...)
}

// look is one GET of the sandbox: transitions advance by looks. Caller holds s.mu.
func (s *Server) look(sb *sandbox) {
	if next, moved := sb.Look(); moved {
		s.settle(sb, next)
	}
}

// settle puts the sandbox in state, doing what reaching it means.
func (s *Server) settle(sb *sandbox, state string) {
	sb.State, sb.updatedAt = state, s.now()
	s.snapshotTaken(sb)
	if withoutProcesses[state] {
		s.endSessions(sb.id)
		s.endPTYs(sb.id)
	}
	switch state {
	case "started":
		sb.lastActivity = s.now()
	case "destroyed":
		sb.destroyed = true
		sb.Set(state)
		_ = os.RemoveAll(filepath.Dir(sb.home))
	}
}

// autoStopCheck is how often the fake's clock lets auto-stop look at every
// sandbox. Daytona's own check is a job, not part of a call: its
// auto-stop-check cron runs every minute (apps/api/src/sandbox/managers/
// sandbox.manager.ts, autostopCheck), every 10 seconds in later releases,
// so a sandbox stops up to that long after its interval ends.
const autoStopCheck = 10 * time.Second

// autoStop is Daytona's auto-stop check, run by the calls themselves once
// autoStopCheck has passed on the fake's clock since its last run. A call
// that came sooner costs nothing: looking at every sandbox on every call
// made each call cost as much as all the sandboxes, all under s.mu. Caller
// holds s.mu.
func (s *Server) autoStop() {
	if now := s.now(); now.Sub(s.stopChecked) >= autoStopCheck {
		s.stopIdle(now)
	}
}

// stopIdle begins stopping every started sandbox idle past its interval at
// now, as Daytona's auto-stop does. Caller holds s.mu.
func (s *Server) stopIdle(now time.Time) {
	s.stopChecked = now
	for _, sb := range s.sandboxes {
		if sb.State == "started" && !sb.Moving() && sb.autoStop > 0 &&
			now.Sub(sb.lastActivity) >= time.Duration(sb.autoStop)*time.Minute {
			s.move(sb, "stopped", "stopping", "stopped")
		}
	}
}

// find returns a sandbox Daytona still has. Caller holds s.mu.
func (s *Server) find(id string) *sandbox {
	sb := s.sandboxes[id]
	if sb == nil || sb.destroyed {
		return nil
	}
	return sb
}

func newSandboxID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// Stop stops a sandbox now, as an auto-stop or a user in Daytona's dashboard would.
func (s *Server) Stop(id string) error { return s.SetState(id, "stopped", "stopped") }

// Archive moves a sandbox to the archive now; its files are kept.
func (s *Server) Archive(id string) error { return s.SetState(id, "archived", "archived") }

// Destroy destroys a sandbox now: Daytona no longer has it.
func (s *Server) Destroy(id string) error { return s.SetState(id, "destroyed", "destroyed") }

// Break puts a sandbox in the error state, with reason: one Daytona cannot
// recover, so it is only fit to be destroyed.
func (s *Server) Break(id, reason string) error { return s.breakDown(id, reason, false) }

// BreakRecoverable puts a sandbox in the error state, with reason, marked
// recoverable (as Daytona marks a full disk, say): a recover mends it, its
// files intact.
func (s *Server) BreakRecoverable(id, reason string) error { return s.breakDown(id, reason, true) }

func (s *Server) breakDown(id, reason string, recoverable bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.find(id)
	if sb == nil {
		return errNoSandbox
	}
	sb.Set("error")
	sb.errorReason, sb.recoverable = reason, recoverable
	return nil
}

// SetState shows a sandbox in any state Daytona has ("destroying",
// "pulling_snapshot", "unknown", …; apps/api/src/sandbox/enums/sandbox-state.enum.ts),
// staying there until the next action or knob.
func (s *Server) SetState(id, state, desired string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.find(id)
	if sb == nil {
		return errNoSandbox
	}
	sb.desired = desired
	sb.Set(state)
	s.settle(sb, state)
	return nil
}

// Transit sets a sandbox on its way through states, wanting desired; each
// lasts Options.Transition looks (at least one).
func (s *Server) Transit(id, desired string, states ...string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.find(id)
	if sb == nil {
		return errNoSandbox
	}
	if len(states) == 0 {
		return errors.New("daytonatest: Transit needs the states to pass through")
	}
	sb.desired, sb.updatedAt = desired, s.now()
	sb.Go(s.opts.Transition, states...)
	return nil
}

// State returns a sandbox's state as Daytona shows it; false when Daytona
// no longer has it.
func (s *Server) State(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.find(id)
	if sb == nil {
		return "", false
	}
	return sb.State, true
}

// Labels returns a sandbox's labels.
func (s *Server) Labels(id string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	if sb := s.sandboxes[id]; sb != nil {
		for k, v := range sb.labels {
			out[k] = v
		}
	}
	return out
}

// Sandboxes lists the ids of the sandboxes Daytona has, oldest first.
func (s *Server) Sandboxes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var live []*sandbox
	for _, sb := range s.sandboxes {
		if !sb.destroyed {
			live = append(live, sb)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].createdAt.Before(live[j].createdAt) })
	ids := make([]string, len(live))
	for i, sb := range live {
		ids[i] = sb.id
	}
	return ids
}

// HomeDir is the host folder seen as WorkDir in a sandbox (when the fake
// runs the toolbox itself).
func (s *Server) HomeDir(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sb := s.sandboxes[id]; sb != nil {
		return sb.home
	}
	return ""
}

// dto is the sandbox as Daytona's API shows it.
func (s *Server) dto(sb *sandbox) map[string]any {
	out := map[string]any{
		"id":                  sb.id,
		"organizationId":      "org-test",
		"name":                sb.id,
		"snapshot":            sb.snapshot,
		"user":                "daytona",
		"env":                 envOf(sb.env),
		"labels":              sb.labels,
		"public":              false,
		"networkBlockAll":     sb.network.BlockAll,
		"target":              sb.target,
		"cpu":                 sb.resources.CPU,
		"gpu":                 0,
		"memory":              sb.resources.Memory,
		"disk":                sb.resources.Disk,
		"state":               sb.State,
		"desiredState":        sb.desired,
		"backupState":         "None",
		"autoStopInterval":    sb.autoStop,
		"autoArchiveInterval": sb.autoArchive,
		"autoDeleteInterval":  sb.autoDelete,
		"volumes":             []any{},
		"sandboxClass":        s.sandboxClass(),
		"createdAt":           isoTime(sb.createdAt),
		"updatedAt":           isoTime(sb.updatedAt),
		"lastActivityAt":      isoTime(sb.lastActivity),
		"daemonVersion":       s.daemonVersion(),
		"runnerId":            "runner-test",
		"toolboxProxyUrl":     s.ToolboxProxyURL(),
	}
	if sb.errorReason != "" {
		out["errorReason"] = sb.errorReason
	}
	if sb.network.AllowList != "" {
		out["networkAllowList"] = sb.network.AllowList
	}
	out["recoverable"] = sb.recoverable
	return out
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Network is a sandbox's network settings: its create's, as updated since.
type Network struct {
	BlockAll                   bool
	AllowList, DomainAllowList string
}

// Created is what a sandbox was created with of the settings tests check.
type Created struct {
	Env                 map[string]string
	Network             Network
	AutoArchiveInterval int
	// Resources are the sandbox's now, after any resize.
	Resources Resources
}

// Settings are what sandbox id was created with.
func (s *Server) Settings(id string) (Created, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.find(id)
	if sb == nil {
		return Created{}, false
	}
	return Created{Env: sb.env, Network: sb.network, AutoArchiveInterval: sb.autoArchive, Resources: sb.resources}, true
}

// envOf is a sandbox's env as the API shows it: {} when none was given
// (services/sandbox.service.ts: createSandboxDto.env || {}).
func envOf(env map[string]string) map[string]string {
	if env == nil {
		return map[string]string{}
	}
	return env
}
