package echotest

import (
	"path"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Config is an echo sandbox's settings: where its instances keep their
// files, and the block every provider shares.
type Config struct {
	WorkDir string `json:"work_dir" validate:"required,max=100" title:"Working folder" doc:"Where commands run and files are kept in every instance."`
	provider.Common
}

// DefaultConfig is a new echo sandbox's settings.
func DefaultConfig() *Config {
	common := provider.DefaultCommon()
	common.Timeout = 60
	return &Config{WorkDir: "/workspace", Common: common}
}

// Validate refuses a working folder the server could not make: it must be
// a clean absolute path other than /.
func (c *Config) Validate(provider.Policy) []provider.FieldError {
	if c.WorkDir != "" && (!path.IsAbs(c.WorkDir) || path.Clean(c.WorkDir) != c.WorkDir || c.WorkDir == "/") {
		return []provider.FieldError{{Field: "work_dir", Message: "must be an absolute folder below /, such as /workspace"}}
	}
	return nil
}
