// Package provider is the contract between Auxilia and the services that run
// sandboxes: the Kind that describes and validates a provider's configuration,
// the Client that drives its instances, the typed errors both speak, and the
// Registry keyed by provider name. Each provider is one package beside this one.
package provider

import (
	"context"
	"encoding/json"
	"io"
	"time"
)

// Kind is one provider: it describes itself and its sandboxes' configuration,
// and reaches them. It is stateless; Open makes a client for one registered sandbox.
type Kind interface {
	// Describe says what the provider is, for the catalogue and the server.
	Describe() Descriptor
	// NewConfig returns a config with every default filled in, as a pointer
	// to the provider's config struct. Its `json`, `validate`, `title` and
	// `doc` tags are the schema.
	NewConfig() Config
	// Open returns a client for a sandbox with these settings (already validated).
	Open(s Settings) (Client, error)
}

// Field describes the url or the secret of a provider's sandboxes.
type Field struct {
	Accepted bool   // false: the field must be empty
	Required bool   // true: the field must be set
	Default  string // filled in when left empty
	Label    string // what the dialog calls it: "Domain", "API key", …
}

// Config is a provider's typed configuration: a struct that embeds Common,
// which gives it CommandTimeout and Packages.
type Config interface {
	// Validate checks what tags cannot: rules across fields and rules that
	// depend on the server's policy. Fields are named by JSON key.
	Validate(p Policy) []FieldError
	// CommandTimeout is the longest a command may run.
	CommandTimeout() time.Duration
	// Packages are the pip requirement specifiers installed in every new instance.
	Packages() []string
	// WarmPool is how many instances are kept ready for new threads.
	WarmPool() Pool
	common() *Common
}

// FieldError names a broken config field by its JSON key (without "config.").
type FieldError struct {
	Field   string
	Message string
}

// Policy is the operator's rules for what sandbox settings are acceptable.
type Policy struct {
	// AllowedHostPaths, when set, are the only host folders (and their
	// subfolders) that volume mounts may use.
	AllowedHostPaths []string
	// BlockPrivateURLs refuses loopback and private addresses in urls.
	BlockPrivateURLs bool
}

// Settings are a registered sandbox as a client needs it.
type Settings struct {
	URL    string // normalised: a full http(s) URL, or "" where the provider takes none
	Secret string // decrypted, "" when none
	Config Config
	// Policy is the operator's rules, applied to every address the client
	// dials (see NewTransport).
	Policy Policy
}

// Labels mark an instance as Auxilia's, with our own ids (never user input).
type Labels struct {
	Workspace string
	Sandbox   string
	Thread    string
	// Instance is our id for this one creation: a provider that can list its
	// instances by label finds the instance again with it (see Finder).
	Instance string
}

// Relabeler is implemented by clients that can change an instance's labels
// after its create: a warm pool's instance, made with the pool's labels, is
// labelled as its thread's when a thread claims it. An instance of a client
// that cannot keeps the labels it was made with; its Instance label, our id
// for the instance, stays the same, so FindCreated finds it either way.
type Relabeler interface {
	Relabel(ctx context.Context, inst Instance, labels Labels) error
}

// Finder is implemented by clients that can find the instance a Create made
// from its labels, even when the creator died before hearing the answer.
type Finder interface {
	FindCreated(ctx context.Context, labels Labels) (Instance, bool, error)
}

// Instance is a live sandbox at the provider.
type Instance struct {
	// ID is the provider's id for it.
	ID string
	// WorkDir is where relative paths resolve and commands run.
	WorkDir string
	// State is the provider's own data about the instance (endpoints,
	// access headers, …). It may hold credentials, so it is stored encrypted.
	State json.RawMessage
}

// Client drives the instances of one registered sandbox. Every method is
// safe for concurrent use. Paths are absolute paths inside the instance.
type Client interface {
	// Probe makes one cheap authenticated call.
	Probe(ctx context.Context) error
	// Create starts a new instance and waits until it can execute commands.
	Create(ctx context.Context, labels Labels) (Instance, error)
	// Reconnect makes an existing instance usable again (renew its lease,
	// start it, restore it) and returns it, possibly with new State; ErrGone
	// when the provider no longer has it. It is an authenticated call, so it
	// also serves as the probe of a warm run.
	Reconnect(ctx context.Context, inst Instance) (Instance, error)
	// KeepAlive tells the provider the instance is in use, during long calls.
	KeepAlive(ctx context.Context, inst Instance) error
	// Persist saves the instance's files where the provider keeps them
	// between runs; a no-op where instances keep their files by themselves.
	Persist(ctx context.Context, inst Instance) error
	// Destroy removes the instance; destroying a gone instance is not an error.
	Destroy(ctx context.Context, inst Instance) error

	// Execute runs a shell command line (sh -c semantics) in inst.WorkDir.
	Execute(ctx context.Context, inst Instance, req ExecRequest) (ExecResult, error)

	// ListFiles lists a directory's direct entries, at most limit of them
	// (limit > 0); which ones a larger directory gives is the provider's choice.
	ListFiles(ctx context.Context, inst Instance, dir string, limit int) ([]FileInfo, error)
	// Stat describes one path; ErrNotFound when it does not exist, a path
	// running through a file included.
	Stat(ctx context.Context, inst Instance, path string) (FileInfo, error)
	// OpenFile opens a file to read it as it arrives, never whole in
	// memory; ErrNotFound when it does not exist. A failure while reading is
	// a provider error too. The caller closes the stream, read to its end or not.
	OpenFile(ctx context.Context, inst Instance, path string) (io.ReadCloser, error)
	// WriteFile writes (or overwrites) a file, creating its parent directories.
	WriteFile(ctx context.Context, inst Instance, path string, data []byte) error
	// RemoveFile removes a file or an empty directory.
	RemoveFile(ctx context.Context, inst Instance, path string) error
}

// ExecRequest is one command to run.
type ExecRequest struct {
	Command string
	// Timeout ends the command: the result then has exit code 124 and its
	// output ends with TimeoutNotice.
	Timeout time.Duration
	// OutputLimit caps the bytes of Output; past it the result is Truncated
	// and Output ends with TruncationNotice. 0 means DefaultOutputLimit.
	OutputLimit int
	// OnOutput, when set, receives output as it arrives ("stdout" or
	// "stderr"), up to the limit. Calls are sequential.
	OnOutput func(stream, text string)
	// Install marks the pip install of a new instance's default packages:
	// a provider whose sandboxes' rules would keep pip from the package
	// index may let this command alone reach the index, and only it (the
	// local provider does).
	Install bool
}

// ExecResult is how a command ended.
type ExecResult struct {
	ExitCode int
	// Output is stdout and stderr together, in arrival order.
	Output    string
	Truncated bool
	TimedOut  bool
	Duration  time.Duration
}

// FileInfo describes a file or directory.
type FileInfo struct {
	Path       string
	Dir        bool
	Size       int64
	ModifiedAt time.Time
}

// TreeLister is a client whose provider lists every path under a folder
// in one call, cheaper than a command that walks it (glob's walk), with
// the same answer: folders, files and hidden ones, symlinks not followed,
// a folder it cannot read left out.
type TreeLister interface {
	// ListTree returns the paths under root, root itself not among them,
	// in any order, at most limit of them, and whether any were left out.
	// ErrUnsupported: this instance's provider cannot, walk instead.
	ListTree(ctx context.Context, inst Instance, root string, limit int) (paths []string, truncated bool, err error)
}

// SaveChecker is a client that can tell, when a sandbox is saved, what
// only its provider knows of the sandbox's config: a template or image it
// does not have, say.
type SaveChecker interface {
	// CheckSave returns the config fields the provider refuses, named by
	// JSON key; none when it accepts them or could not say (no answer, a
	// refused key: the probe reports those).
	CheckSave(ctx context.Context) []FieldError
}
