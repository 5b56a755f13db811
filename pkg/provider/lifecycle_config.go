package provider

import "time"

// The values of the common block's keep_files.
const (
	// KeepUntilExpiry: a thread's files live as long as its instance.
	KeepUntilExpiry = "until_expiry"
	// KeepAlways: a thread's files are kept before its instance can be
	// lost, and a replacement instance starts from them.
	KeepAlways = "always"
)

// DefaultMaxKeptDays is how long kept files are kept unless a sandbox says otherwise.
const DefaultMaxKeptDays = 7

// Lifecycle is what a sandbox's config says of its threads' instances
// between runs: when they pause and whether their files are kept.
type Lifecycle struct {
	// IdleAfter is how long a thread goes without a run or a tool call
	// before its instance is paused; 0 never pauses.
	IdleAfter time.Duration
	// KeepFiles is set when files are kept beyond their instance.
	KeepFiles bool
	// KeptFor is how long kept files are kept.
	KeptFor time.Duration
}

// LifecycleOf reads cfg's lifecycle settings.
func LifecycleOf(cfg Config) Lifecycle {
	c := cfg.common()
	return Lifecycle{IdleAfter: time.Duration(c.IdleMinutes) * time.Minute, KeepFiles: c.KeepFiles == KeepAlways,
		KeptFor: time.Duration(c.MaxKeptDays) * 24 * time.Hour}
}

// lifecycleRefusals names the lifecycle settings d's provider cannot honour:
// pausing needs PauseResume, or SnapshotRestore with the files kept (the
// instance is kept, then released); keeping files needs SnapshotRestore.
func lifecycleRefusals(d Descriptor, c *Common) []FieldError {
	var out []FieldError
	keeps := d.Capabilities.Has(SnapshotRestore)
	if c.KeepFiles == KeepAlways && !keeps {
		out = append(out, FieldError{Field: "keep_files", Message: "must be until_expiry: " + d.Title + " sandboxes cannot keep files beyond their instance"})
	}
	if c.IdleMinutes > 0 && !d.Capabilities.Has(PauseResume) && !(keeps && c.KeepFiles == KeepAlways) {
		msg := "must be 0: " + d.Title + " sandboxes cannot be paused"
		if keeps {
			msg += " (set keep_files to always to keep an idle instance's files and release it)"
		}
		out = append(out, FieldError{Field: "idle_minutes", Message: msg})
	}
	return out
}
