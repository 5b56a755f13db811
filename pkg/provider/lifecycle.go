package provider

import (
	"context"
	"encoding/json"
	"time"
)

// Pauser is a client whose instances can be paused, keeping their files
// (and, where the provider can, their memory) while they cost little or
// nothing. Reconnect resumes a paused instance. A provider whose clients
// are Pausers declares PauseResume.
type Pauser interface {
	// Pause stops the instance with its files; pausing a paused instance
	// is not an error, pausing a gone one is ErrGone.
	Pause(ctx context.Context, inst Instance) error
}

// Kept is an instance's files kept beyond the instance itself: a snapshot,
// an archive, a folder.
type Kept struct {
	// ID is the provider's id for what it kept.
	ID string
	// State is the provider's own data about it; it may hold credentials,
	// so it is stored encrypted.
	State json.RawMessage
	// At is when the files were kept.
	At time.Time
	// Bytes is how much the provider keeps, for the usage; 0 when it does
	// not say.
	Bytes int64
}

// Keeper is a client that can keep an instance's files and make a new
// instance from them. A provider whose clients are Keepers declares
// SnapshotRestore.
type Keeper interface {
	// Keep saves the instance's working folder; the instance itself is
	// left as it was.
	Keep(ctx context.Context, inst Instance) (Kept, error)
	// CreateFrom makes a new instance, as Create does, holding the kept files.
	CreateFrom(ctx context.Context, labels Labels, kept Kept) (Instance, error)
	// Forget deletes what was kept; forgetting what is gone is not an error.
	Forget(ctx context.Context, kept Kept) error
}
