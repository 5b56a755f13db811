package store

// The raw tables, for this package's own tests only: everything else goes
// through In or System.

func (db *DB) Agents() agentTable     { return db.agents() }
func (db *DB) Bindings() bindingTable { return db.bindings() }

func (db *DB) Sandboxes() sandboxTable { return db.sandboxes() }
