package api

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersionIsTheModulesOrElseItsCommit(t *testing.T) {
	assert.Equal(t, "v1.4.0", versionOf(&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}))
	assert.Equal(t, "v0.0.0-20261204232949-e235228abcde+dirty",
		versionOf(&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204232949-e235228abcde+dirty"}}))
	assert.Equal(t, "e235228abcde+dirty", versionOf(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "e235228abcdef0123456789"}, {Key: "vcs.modified", Value: "true"}}}))
	assert.Equal(t, "e235228abcde", versionOf(&debug.BuildInfo{
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "e235228abcdef0123456789"}, {Key: "vcs.modified", Value: "false"}}}))
	assert.Equal(t, "devel", versionOf(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}))
	assert.Equal(t, "devel", versionOf(nil))
}
