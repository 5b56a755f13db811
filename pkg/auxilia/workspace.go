package auxilia

import "time"

// DefaultWorkspace is the workspace a fresh installation creates.
const DefaultWorkspace = "default"

// Workspace is the tenant: every other resource belongs to exactly one.
type Workspace struct {
	ID        string
	Name      string
	CreatedAt time.Time
}
