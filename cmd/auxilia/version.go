package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// version says which build this is, from what the Go toolchain recorded in
// it: the module's version (v1.2.3 when installed from a tag, "(devel)"
// when built from a checkout), the commit and whether the checkout had
// changes, and the Go version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "auxilia (no build information)"
	}
	return describeBuild(info)
}

func describeBuild(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	parts := []string{"auxilia", info.Main.Version}
	if commit := settings["vcs.revision"]; commit != "" {
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if settings["vcs.modified"] == "true" {
			commit += "+changes"
		}
		parts = append(parts, "commit "+commit)
		if at := settings["vcs.time"]; at != "" {
			parts = append(parts, "of "+at)
		}
	}
	return fmt.Sprintf("%s (%s)", strings.Join(parts, " "), info.GoVersion)
}
