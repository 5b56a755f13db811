package auxilia

import (
	"encoding/json"
	"time"
)

// Sandbox is a registered runtime: where a provider is reached and how its
// instances are made. Its secret is never held here, only what may be shown of it.
type Sandbox struct {
	ID          string
	WorkspaceID string
	SandboxSpec
	Secret SecretHint
	Health Health
	// ManagedBy names the tool that manages the sandbox (such as
	// auxilia-apply); "" when none does.
	ManagedBy string
	Version   int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SandboxSpec is what an admin configures: everything validation checks.
type SandboxSpec struct {
	Name        string
	Description string
	Provider    string
	URL         string          // normalised; "" where the provider takes none
	Config      json.RawMessage // the provider's config, every default written out
	HasSecret   bool
}

// SecretHint is what may be shown of a stored secret.
type SecretHint struct {
	IsSet  bool
	Last4  string // "" when the secret is too short to show any of it
	Length int
}

// SealedSecret is a secret encrypted at rest, with the id of its key.
type SealedSecret struct {
	KeyID      string
	Ciphertext string
}

// HealthStatus is the outcome of a sandbox's last probe.
type HealthStatus string

// Health statuses.
const (
	HealthUnknown HealthStatus = "unknown"
	HealthOK      HealthStatus = "ok"
	HealthFailed  HealthStatus = "failed"
)

// Health is what the last probe of a sandbox found.
type Health struct {
	Status    HealthStatus
	CheckedAt *time.Time
	LatencyMS *int
	Detail    string
	// History holds the most recent probes, oldest first.
	History []Probe
}

// HealthHistoryLength is how many recent probes a sandbox's health keeps.
const HealthHistoryLength = 20

// Probe is one past probe of a sandbox.
type Probe struct {
	At        time.Time `json:"at"`
	OK        bool      `json:"ok"`
	LatencyMS int       `json:"latency_ms"`
	// Reason and Detail say why a failed probe failed (network, auth, config, provider).
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// SandboxCheck validates a spec before it is saved; the store runs it on
// every save, so nothing invalid reaches a row by any route.
type SandboxCheck func(SandboxSpec) error
