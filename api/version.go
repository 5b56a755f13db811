package api

import (
	"runtime/debug"
)

// buildVersion is the version of the running binary, as Go stamped it at
// build time: the module's version (from the repository's tag or commit),
// else its commit, else "devel".
func buildVersion() string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(info)
}

func versionOf(info *debug.BuildInfo) string {
	if info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var revision, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if revision == "" {
		return "devel"
	}
	revision = revision[:min(len(revision), 12)]
	if modified == "true" {
		revision += "+dirty"
	}
	return revision
}
