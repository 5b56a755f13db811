package daytona

import (
	"fmt"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// capture wraps a command for Daytona's /process/execute, which answers with
// stdout and stderr mixed together, and with nothing at all when the command
// runs out of time. The wrapper keeps the output in a file in the sandbox
// (so that a timed-out command's output can still be fetched), marks each
// line of stderr (so that the streams can be told apart), runs the command
// with bash where the sandbox has it and sh otherwise, whatever shell the
// daemon uses (as execd and our gateway do: source, [[ ]] and pipefail
// work alike on every provider), with no stdin, and sends back no
// more of the output than the limit needs. It returns when the command's
// shell does, even when a job the command left running still holds stderr.
type capture struct {
	dir         string // in the sandbox; removed by the wrapper, or after a timeout
	open, close string // around each line of stderr in the output file
	end         string // written after the shell's own stderr: the marking may stop
	fin         string // ends a streamed output, before the command's exit code
	// marker is the variable the command's shell starts with, and so all
	// it starts (unless they clear their environment): by it, an
	// interrupt finds what left the command's process group.
	marker string
	send   int // bytes of the output file sent back at most
}

func newCapture(outputLimit int) capture {
	if outputLimit <= 0 {
		outputLimit = provider.DefaultOutputLimit
	}
	tag := randomID()[:8]
	cp := capture{
		dir:   "/tmp/.auxilia-exec-" + randomID(),
		open:  "<<e:" + tag + ">>",
		close: "<</e:" + tag + ">>",
		end:   "<<end:" + tag + ">>",
		fin:   "<<fin:" + tag + ">>",
	}
	cp.marker = markerVar + "=" + randomID()
	// A byte of output takes at most this much of the file (a one-byte line
	// of stderr with its markers), so sending this much is always enough to
	// fill the limit and tell that it was passed.
	perByte := len(cp.open) + len(cp.close) + 1
	cp.send = perByte * (outputLimit + 2)
	return cp
}

// outputFile is where the wrapped command's output accumulates.
func (cp capture) outputFile() string { return cp.dir + "/out" }

// script is the shell text sent as the command. stdout goes straight to the
// output file; stderr through a loop that writes each line there between
// the markers as it comes. The daemon answers only when nothing holds its
// output any more, and the loop lasts as long as anything holds stderr (a
// server the command started, say): so the command and the loop run in the
// background, away from the daemon's output, and the loop says through a
// named pipe when it has marked all the shell's stderr, after which it
// drains the rest unmarked, so that the jobs left can still write. A
// watchdog waits on another named pipe, the stop pipe: a line there kills
// the command's whole process group, jobs and wrapper included, which is
// how a command is interrupted (the daemon itself runs it to its timeout).
// A sandbox where the folder cannot be made runs the command plainly.
func (cp capture) script(command string) string {
	q := shell.Quote(command)
	mark := cp.markStderr()
	var b strings.Builder
	b.WriteString(cp.pickShell())
	fmt.Fprintf(&b, "if mkdir -m 700 \"$d\" 2>/dev/null && printf '%%s' %s >\"$d/cmd\" && mkfifo \"$d/done\" \"$d/stop\"; then\n", q)
	fmt.Fprintf(&b, "{ read -r _ <\"$d/stop\" && kill -9 0; } </dev/null >/dev/null 2>&1 &\nw=$!\n")
	fmt.Fprintf(&b, "{ { %s \"$x\" \"$d/cmd\" </dev/null 2>&1 >&3 3>&-; echo \"$?\" >\"$d/status\"; echo '%s'; } | { %s; echo >\"$d/done\"; cat >/dev/null; } >&3 3>&-; } 3>>\"$d/out\" </dev/null >/dev/null 2>&1 &\n", cp.marker, cp.end, mark)
	fmt.Fprintf(&b, "read -r _ <\"$d/done\"\nkill \"$w\" 2>/dev/null\n")
	fmt.Fprintf(&b, "s=$(cat \"$d/status\" 2>/dev/null)\nhead -c %d \"$d/out\"\nrm -rf \"$d\"\nexit \"${s:-125}\"\nfi\n", cp.send)
	fmt.Fprintf(&b, "rm -rf \"$d\" 2>/dev/null\n\"$x\" -c %s </dev/null 2>&1\n", q)
	return b.String()
}

// pickShell names the folder and picks the shell: bash where there is one.
func (cp capture) pickShell() string {
	return fmt.Sprintf("d=%s\nx=sh\ncommand -v bash >/dev/null 2>&1 && x=bash\n", shell.Quote(cp.dir))
}

// markStderr is the loop that copies the shell's stderr, each line between
// the markers, until the end marker the wrapper writes when the shell exits.
func (cp capture) markStderr() string {
	return fmt.Sprintf(`while IFS= read -r l; do case $l in *'%[3]s') l=${l%%'%[3]s'}; break;; esac; printf '%%s%%s\n%%s' '%[1]s' "$l" '%[2]s'; l=; done; [ -z "$l" ] || printf '%%s%%s%%s' '%[1]s' "$l" '%[2]s'`, cp.open, cp.close, cp.end)
}

// collectScript fetches what a command killed at its timeout left in the
// output file, and removes the folder its wrapper had no time to remove.
func (cp capture) collectScript() string {
	return fmt.Sprintf("head -c %d %s 2>/dev/null; rm -rf %s\n", cp.send, shell.Quote(cp.outputFile()), shell.Quote(cp.dir))
}

// stopScript interrupts the command: it kills the process group the
// command's shell was started in with setsid, whose leader wrote its pid
// to the folder (a streamed command's; the daemon's delete does not reach
// it once its parents are gone), writes a line to the stop pipe, opened
// for reading and writing so as never to block (when the command has
// ended, nobody reads it), kills what still carries the command's marker
// (jobs that made sessions or groups of their own), and removes the
// folder. The marked are stopped before they are killed, and looked for
// again, so that none forks away in between.
func (cp capture) stopScript() string {
	d := shell.Quote(cp.dir)
	var b strings.Builder
	fmt.Fprintf(&b, "g=$(cat %[1]s/pgid 2>/dev/null) && [ -n \"$g\" ] && kill -KILL -- \"-$g\" 2>/dev/null\n", d)
	fmt.Fprintf(&b, "[ -p %[1]s/stop ] && { echo >&3; } 3<>%[1]s/stop\n", d)
	fmt.Fprintf(&b, "m=%s\ni=0\nwhile [ \"$i\" -lt 10 ]; do\ni=$((i + 1)) f=\n", shell.Quote(cp.marker))
	b.WriteString("for e in /proc/[0-9]*/environ; do\np=${e#/proc/} p=${p%/environ}\n[ \"$p\" = \"$$\" ] && continue\n")
	b.WriteString("tr '\\000' '\\n' <\"$e\" 2>/dev/null | grep -qxF \"$m\" && kill -STOP \"$p\" 2>/dev/null && f=\"$f $p\"\ndone\n")
	b.WriteString("[ -z \"$f\" ] && break\nkill -KILL $f 2>/dev/null\ndone\n")
	fmt.Fprintf(&b, "rm -rf %s\n", d)
	return b.String()
}

// markerVar names the variable that marks a command's processes.
const markerVar = "AUXILIA_COMMAND"

// segment is a run of output from one stream.
type segment struct {
	stream, text string
}

// segments splits the output file back into its streams, in order; a line
// of stderr cut short (by a timeout) runs to the end.
func (cp capture) segments(raw string) []segment {
	var out []segment
	add := func(stream, text string) {
		if text == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].stream == stream {
			out[n-1].text += text
			return
		}
		out = append(out, segment{stream, text})
	}
	for raw != "" {
		i := strings.Index(raw, cp.open)
		if i < 0 {
			add("stdout", raw)
			break
		}
		add("stdout", raw[:i])
		raw = raw[i+len(cp.open):]
		j := strings.Index(raw, cp.close)
		if j < 0 {
			add("stderr", raw)
			break
		}
		add("stderr", raw[:j])
		raw = raw[j+len(cp.close):]
	}
	return out
}

// replay writes the output file's streams to out.
func (cp capture) replay(raw string, out *provider.Output) {
	for _, s := range cp.segments(raw) {
		out.Write(s.stream, s.text)
	}
}
