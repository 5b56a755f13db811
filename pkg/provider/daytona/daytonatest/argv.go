package daytonatest

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/auxilia/sandboxes/pkg/shell"
)

// argvDaemonVersion is the version the fake reports with Options.ArgvCommands.
const argvDaemonVersion = "v0.155.0"

// daemonVersion is the version of the daemon the fake's toolbox plays.
func (s *Server) daemonVersion() string {
	if s.opts.ArgvCommands {
		return argvDaemonVersion
	}
	return "v0.190.0"
}

// splitArguments splits a command as daemons before v0.156 did, to run it
// without a shell (parseCommand in Daytona's
// apps/daemon/pkg/toolbox/process/execute.go at v0.155.0): at spaces
// outside quotes, the quotes themselves dropped; no other character, a
// line break included, separates arguments.
func splitArguments(command string) []string {
	var args []string
	var arg strings.Builder
	var open rune
	for _, r := range command {
		switch {
		case open == 0 && (r == '"' || r == '\''):
			open = r
		case open != 0 && r == open:
			open = 0
		case open == 0 && r == ' ':
			if arg.Len() > 0 {
				args = append(args, arg.String())
				arg.Reset()
			}
		default:
			arg.WriteRune(r)
		}
	}
	if arg.Len() > 0 {
		args = append(args, arg.String())
	}
	return args
}

// startable reports whether Go's exec on the daemon would start the
// program name: one named without a folder is looked up in the jail's
// system folders; a path is left to the jail's shell, unless it holds a
// line break, which no file in a sandbox's name does.
func startable(name string) bool {
	if strings.Contains(name, "\n") {
		return false
	}
	if strings.Contains(name, "/") {
		return true
	}
	for _, dir := range []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"} {
		if info, err := os.Stat(filepath.Join(dir, name)); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// argvScript is the shell text that runs args as they are, with no shell
// reading them: each is quoted whole.
func argvScript(args []string) string {
	return shell.Join(args) + "\n"
}
