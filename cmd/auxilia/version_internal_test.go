package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The version names the module's version, the commit (marked when the
// checkout had changes) and the Go version the build recorded.
func TestVersionDescribesTheBuild(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	assert.Equal(t, "auxilia v1.4.0 commit 0123456789ab+changes of 2026-12-01T10:00:00Z (go1.26.0)", describeBuild(info))
	assert.Equal(t, "auxilia (devel) (go1.26.0)", describeBuild(&debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}))
}
