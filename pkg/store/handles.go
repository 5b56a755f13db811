package store

// The store reaches its tables through two handles only (see
// handles_test.go, which fails when anything else is exported):
//
//   - a Tenant, bound to one workspace: its methods take no workspace id and
//     fill in their own, so a handler or a service cannot read or write
//     another workspace's rows by passing the wrong one;
//   - a System, named after the background job (or the cross-workspace
//     lookup) that uses it, for the work no single workspace owns.
//
// Some Tenant methods take the id of a row the caller has already found in
// its workspace (an agent's binding, a thread's runs): they read or write
// that row as before, scoped by the id the workspace-scoped lookup returned.

// Tenant is the store bound to one workspace.
type Tenant struct {
	db *DB
	ws string
}

// In returns the store bound to the workspace workspaceID.
func (db *DB) In(workspaceID string) Tenant { return Tenant{db: db, ws: workspaceID} }

// WorkspaceID is the workspace the handle is bound to.
func (t Tenant) WorkspaceID() string { return t.ws }

// System is the store for a background job or a lookup across workspaces.
type System struct {
	db  *DB
	job string
}

// System returns the store for the background job named job ("pools",
// "health", "reaper", …): the name says who reaches across workspaces.
func (db *DB) System(job string) System { return System{db: db, job: job} }

// Job names the work the handle serves.
func (s System) Job() string { return s.job }
