package bubblewrap

import (
	"github.com/auxilia/sandboxes/pkg/shell"
)

// InBash is a command line for Run that runs command with bash where the
// jail has it and with sh where it has not, as OpenSandbox's execd picks
// its shell (components/execd/pkg/runtime/command.go, getShell): scripts
// written for bash (`[[ ]]`, arrays, `source`, `pipefail`) work wherever
// bash is, and plain ones everywhere. The command is given once, quoted.
func InBash(command string) string {
	return "c=" + shell.Quote(command) + `; command -v bash >/dev/null 2>&1 && exec bash -c "$c"; exec sh -c "$c"`
}
