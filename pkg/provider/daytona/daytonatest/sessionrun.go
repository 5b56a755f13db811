package daytonatest

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
)

// Stream prefixes the daemon's wrapper writes before each line of a
// command's log (STDOUT_PREFIX and STDERR_PREFIX in Daytona's
// libs/common-go/pkg/log/read_multiplex_log.go).
var (
	stdoutPrefix = []byte{1, 1, 1}
	stderrPrefix = []byte{2, 2, 2}
)

// sessionWrapper is the daemon's wrapper of a session's command, word for
// word (cmdWrapperFormat in apps/daemon/pkg/session/execute.go): each
// stream read line by line, each line written to the log after its prefix
// and with a line break, the command sourced from its file with stdin from
// a pipe held open for input when it runs async, and the exit code written
// only when both streams have ended, so a job that keeps either open holds
// the command.
const sessionWrapper = `
{
	log=%q
	dir=%q

	# per-command FIFOs
	sp="$dir/stdout.pipe"
	ep="$dir/stderr.pipe"
	ip=%q
	
	rm -f "$sp" "$ep" "$ip" && mkfifo "$sp" "$ep" "$ip" || exit 1

	cleanup() { rm -f "$sp" "$ep" "$ip"; }
	trap 'cleanup' EXIT HUP INT TERM

	( while IFS= read -r line || [ -n "$line" ]; do printf '%s%%s\n' "$line"; done < "$sp" ) >> "$log" & r1=$!
	( while IFS= read -r line || [ -n "$line" ]; do printf '%s%%s\n' "$line"; done < "$ep" ) >> "$log" & r2=$!

	%s
	ip_pid=$!

	{ . %q; } < "$ip" > "$sp" 2> "$ep"
	_ec=$?

	kill "$ip_pid" 2>/dev/null; wait "$ip_pid" 2>/dev/null

	wait "$r1" "$r2"

	echo "$_ec" >> %q

	cleanup
}
`

// octal writes bytes as printf's octal escapes, as the daemon does.
func octal(b []byte) string {
	var out string
	for _, c := range b {
		out += fmt.Sprintf("\\%03o", c)
	}
	return out
}

// startSessionCommand writes the command's file and empty log, and the
// daemon's wrapper of it to the session's shell, which runs it once the
// commands before it are done (Execute in apps/daemon/pkg/session/execute.go).
func (s *Server) startSessionCommand(ss *shellSession, cmdID, command string, async bool) error {
	dir := ss.commandDir(cmdID)
	if err := makeOwnedDir(dir); err != nil {
		return fmt.Errorf("failed to create log directory: %w", err)
	}
	for name, content := range map[string]string{"output.log": "", "cmd.sh": command} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			return fmt.Errorf("failed to write %s: %w", name, err)
		}
		if err := ownByJailUser(p); err != nil {
			return err
		}
	}
	in := path.Join(WorkDir, ".daytona", "sessions", ss.id, cmdID)
	// A sync command sees EOF on stdin at once; an async one a pipe held open for input.
	stdin := `cat /dev/null > "$ip" &`
	if async {
		stdin = `while :; do sleep 3600; done > "$ip" &`
	}
	script := fmt.Sprintf(sessionWrapper, in+"/output.log", in, in+"/input.pipe",
		octal(stdoutPrefix), octal(stderrPrefix), stdin, in+"/cmd.sh", in+"/exit_code")

	s.mu.Lock()
	ss.commands[cmdID] = command
	s.mu.Unlock()
	ss.stdinMu.Lock()
	defer ss.stdinMu.Unlock()
	if _, err := ss.stdin.WriteString(script + "\n"); err != nil {
		return fmt.Errorf("failed to write command: %w", err)
	}
	return nil
}

// stripPrefixes takes the stream prefixes out of a log, as the daemon does
// for a caller that wants the output combined (GetSessionCommandLogs in
// apps/daemon/pkg/session/log.go).
func stripPrefixes(raw []byte) []byte {
	return bytes.ReplaceAll(bytes.ReplaceAll(raw, stdoutPrefix, nil), stderrPrefix, nil)
}

// ownByJailUser gives p to the user commands run as, when the fake can.
func ownByJailUser(p string) error {
	uid, gid := bubblewrap.Jail{}.User()
	if err := os.Chown(p, uid, gid); err != nil && os.Geteuid() == 0 {
		return err
	}
	return nil
}
