package daytona

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// relayPause is how long the relay waits for more output once it has
// copied all there is, in the sandbox.
const relayPause = "0.05"

// streamScript is the shell text of a command run in a session, whose
// output the daemon streams as it comes. It keeps the output as script
// does, in the file, stdout as written and stderr marked line by line, and
// copies the file to its own stdout line by line as it grows (the daemon
// streams whole lines), until the line that ends it with the fin marker
// and the exit code: the fin marker follows the output's last byte, so a
// last line without a line break stays without one. Past the bytes the
// limit needs it reads no more of the output, which may be large: it waits
// for the fin line, also kept in a file of its own. It returns when
// the command's shell does: jobs left running keep the file, never the
// daemon's output. The command's shell, and what drains the stderr of the
// jobs it leaves, run in sessions of their own where setsid exists, so that
// such jobs outlive the daemon's session, which is deleted once the command
// is over (the daemon kills the session's process group and its shell's
// descendants, which they no longer are). So a command interrupted while
// running is not the daemon's to kill: its shell writes the pid of its
// group (its own, made by setsid) to the folder, carries a marker in its
// environment that all it starts inherits, and stopScript kills the group
// and the marked. A sandbox where the folder cannot be made runs the command
// plainly, stderr with stdout, and ends the same way. A session has no
// working folder of its own: the script goes to dir first.
func (cp capture) streamScript(command, dir string) string {
	q := shell.Quote(command)
	var b strings.Builder
	fmt.Fprintf(&b, "cd %s || { printf '%%s%%s\\n' '%s' 1; exit 1; }\n", shell.Quote(dir), cp.fin)
	b.WriteString(cp.pickShell())
	b.WriteString("j=\ncommand -v setsid >/dev/null 2>&1 && j=setsid\n")
	fmt.Fprintf(&b, "if mkdir -m 700 \"$d\" 2>/dev/null && printf '%%s' %s >\"$d/cmd\" && : >\"$d/out\"; then\n", q)
	fmt.Fprintf(&b, "{ { %s $j \"$x\" -c 'echo \"$$\" >\"$1/pgid\"; exec \"$0\" \"$1/cmd\"' \"$x\" \"$d\" </dev/null 2>&1 >&3 3>&-; echo \"$?\" >\"$d/status\"; echo '%s'; } | { %s; f=%s$(cat \"$d/status\" 2>/dev/null); printf '%%s\\n' \"$f\"; printf '%%s\\n' \"$f\" >\"$d/fin\"; $j cat >/dev/null; } >&3 3>&-; } 3>>\"$d/out\" </dev/null >/dev/null 2>&1 &\n",
		cp.marker, cp.end, cp.markStderr(), shell.Quote(cp.fin))
	fmt.Fprintf(&b, "n=0 p=\nwhile :; do\nif IFS= read -r l; then\nl=$p$l p=\ncase $l in *'%s'*) printf '%%s\\n' \"$l\"; break;; esac\n", cp.fin)
	b.WriteString("printf '%s\\n' \"$l\"\nn=$((n + ${#l} + 1))\n")
	fmt.Fprintf(&b, "[ \"$n\" -gt %d ] && { until [ -s \"$d/fin\" ]; do sleep %s; done; cat \"$d/fin\"; break; }\n", cp.send, relayPause)
	fmt.Fprintf(&b, "else\np=$p$l\nsleep %s\nfi\ndone <\"$d/out\"\nrm -rf \"$d\"\nexit 0\nfi\n", relayPause)
	fmt.Fprintf(&b, "rm -rf \"$d\" 2>/dev/null\n\"$x\" -c %s </dev/null 2>&1\nprintf '%%s%%s\\n' '%s' \"$?\"\n", q, cp.fin)
	return b.String()
}

// streamDecoder turns the streamed output back into its streams as it
// arrives, holding back what may be the start of a marker or of a
// character, and finds the exit code after the fin marker.
type streamDecoder struct {
	cp     capture
	out    *provider.Output
	held   string
	stderr bool
	done   bool
	code   int
}

// feed takes the next piece of the stream; it reports whether the fin
// line has come, after which the rest is ignored.
func (d *streamDecoder) feed(piece string) bool {
	if d.done {
		return true
	}
	d.held += piece
	for {
		marker := d.cp.open
		stream := "stdout"
		if d.stderr {
			marker, stream = d.cp.close, "stderr"
		}
		i, fin := strings.Index(d.held, marker), strings.Index(d.held, d.cp.fin)
		switch {
		case fin >= 0 && (i < 0 || fin < i):
			line, ok := d.finLine(fin)
			if !ok {
				return false // the exit code is still to come
			}
			d.out.Write(stream, d.held[:fin])
			d.done, d.held = true, ""
			d.code = line
			return true
		case i >= 0:
			d.out.Write(stream, d.held[:i])
			d.held = d.held[i+len(marker):]
			d.stderr = !d.stderr
		default:
			keep := d.ready()
			d.out.Write(stream, d.held[:keep])
			d.held = d.held[keep:]
			return false
		}
	}
}

// finLine reads the exit code after the fin marker at i, once its line is whole.
func (d *streamDecoder) finLine(i int) (int, bool) {
	rest := d.held[i+len(d.cp.fin):]
	end := strings.IndexByte(rest, '\n')
	if end < 0 {
		return 0, false
	}
	code, err := strconv.Atoi(strings.TrimSpace(rest[:end]))
	if err != nil {
		return missingStatus, true
	}
	return code, true
}

// missingStatus is the exit code of a command whose wrapper could not
// tell its shell's, as the wrapper of /process/execute reports it.
const missingStatus = 125

// ready returns how much of held can be written now: all but a tail
// that may begin a marker, or a character cut short.
func (d *streamDecoder) ready() int {
	s := d.held
	n := len(s)
	for _, m := range []string{d.cp.open, d.cp.close, d.cp.fin} {
		for k := min(len(m)-1, len(s)); k > 0; k-- {
			if strings.HasSuffix(s, m[:k]) {
				n = min(n, len(s)-k)
				break
			}
		}
	}
	i := n - 1
	for i >= 0 && i > n-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRuneInString(s[i:n]) {
		n = i
	}
	return n
}

// flush writes what was held back, when the stream ends without its fin line.
func (d *streamDecoder) flush() {
	stream := "stdout"
	if d.stderr {
		stream = "stderr"
	}
	d.out.Write(stream, d.held)
	d.held = ""
}
