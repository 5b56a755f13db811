package store

import "context"

// The raw tables, for this package's own tests only: everything else goes
// through In or System.

func (db *DB) Agents() agentTable              { return db.agents() }
func (db *DB) Bindings() bindingTable          { return db.bindings() }
func (db *DB) Sandboxes() sandboxTable         { return db.sandboxes() }
func (db *DB) Tokens() tokenTable              { return db.tokens() }
func (db *DB) Workspaces() workspaceTable      { return db.workspaces() }
func (db *DB) Audit() auditTable               { return db.audit() }
func (db *DB) Idempotency() idempotencyTable   { return db.idempotency() }
func (db *DB) RateWindows() rateTable          { return db.rateWindows() }
func (db *DB) Threads() threadTable            { return db.threads() }
func (db *DB) Runs() runTable                  { return db.runs() }
func (db *DB) Approvals() approvalTable        { return db.approvals() }
func (db *DB) Instances() instanceTable        { return db.instances() }
func (db *DB) Kept() keptTable                 { return db.kept() }
func (db *DB) Pools() poolTable                { return db.pools() }
func (db *DB) Purge(ctx context.Context) error { return db.System("test").Purge(ctx) }
