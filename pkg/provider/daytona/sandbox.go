package daytona

import (
	"github.com/auxilia/sandboxes/pkg/provider"
)

// sandbox is the part of Daytona's Sandbox the client reads.
type sandbox struct {
	ID              string            `json:"id"`
	State           string            `json:"state"`
	DesiredState    string            `json:"desiredState"`
	ErrorReason     string            `json:"errorReason"`
	Recoverable     bool              `json:"recoverable"` // an error Daytona's recover can mend
	ToolboxProxyURL string            `json:"toolboxProxyUrl"`
	Labels          map[string]string `json:"labels"`
	CPU             int               `json:"cpu"`    // vCPUs
	Memory          int               `json:"memory"` // GiB
}

// createSandbox is the body of POST /sandbox.
type createSandbox struct {
	Snapshot string `json:"snapshot,omitempty"`
	Target   string `json:"target,omitempty"`
	// AutoStopInterval is always sent: 0 switches auto-stop off, and an
	// absent field would mean Daytona's default of 15 minutes.
	AutoStopInterval int `json:"autoStopInterval"`
	// AutoArchiveInterval is always sent: 0 means Daytona's longest.
	AutoArchiveInterval int               `json:"autoArchiveInterval"`
	Labels              map[string]string `json:"labels"`
	Env                 map[string]string `json:"env,omitempty"`
	NetworkBlockAll     *bool             `json:"networkBlockAll,omitempty"`
	NetworkAllowList    string            `json:"networkAllowList,omitempty"`
}

// phase is what a sandbox's state asks of a client that wants to use it.
type phase int

const (
	phaseReady   phase = iota // started: use it
	phaseComing               // on its way to started: wait
	phaseAsleep               // stopped, paused or archived: start it
	phaseFalling              // stopping or pausing: wait until it settles, then start it
	phaseGone                 // destroyed, failed: it will not come back
	phaseStuck                // unknown: Daytona lost track of it; waiting will not help
	phaseBusy                 // building, resizing, …, and states this client does not know: wait
)

var phases = map[string]phase{
	"started":          phaseReady,
	"starting":         phaseComing,
	"creating":         phaseComing,
	"restoring":        phaseComing,
	"resuming":         phaseComing,
	"pulling_snapshot": phaseComing,
	"stopped":          phaseAsleep,
	"paused":           phaseAsleep,
	"archived":         phaseAsleep,
	"archiving":        phaseAsleep, // Daytona starts an archiving sandbox at once
	"stopping":         phaseFalling,
	"pausing":          phaseFalling,
	"destroyed":        phaseGone,
	"destroying":       phaseGone,
	"error":            phaseGone,
	"build_failed":     phaseGone,
	"unknown":          phaseStuck,
	// These end by themselves: a build in a started sandbox (Daytona's
	// apps/api/src/sandbox/managers/sandbox-actions/sandbox-start.action.ts),
	// a resize, snapshot or fork back where it began (its sandbox.manager.ts
	// and services/job-state-handler.service.ts).
	"pending_build":     phaseBusy,
	"building_snapshot": phaseBusy,
	"resizing":          phaseBusy,
	"snapshotting":      phaseBusy,
	"forking":           phaseBusy,
}

func phaseOf(state string) phase {
	if p, ok := phases[state]; ok {
		return p
	}
	return phaseBusy
}

// The labels that mark a sandbox as Auxilia's, with our own ids.
const (
	labelWorkspace = "auxilia.io/workspace"
	labelSandbox   = "auxilia.io/sandbox"
	labelThread    = "auxilia.io/thread"
	// labelCreation holds one create call's random id, by which the client
	// finds the sandbox when the answer to that call is lost.
	labelCreation = "auxilia.io/creation"
)

func sandboxLabels(l provider.Labels, creation string) map[string]string {
	out := map[string]string{labelCreation: creation}
	for key, value := range map[string]string{labelWorkspace: l.Workspace, labelSandbox: l.Sandbox, labelThread: l.Thread} {
		if value != "" {
			out[key] = value
		}
	}
	return out
}
