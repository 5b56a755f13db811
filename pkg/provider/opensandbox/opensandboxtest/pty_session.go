package opensandboxtest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// ptySession is one of execd's interactive shells
// (components/execd/pkg/runtime/pty_session.go, ptySession): made by
// POST /pty, its bash starts when the first WebSocket attaches, on a real
// pseudo-terminal. The fake's bash runs on the host, as the test's own user,
// in the host folder that stands for the session's working directory.
type ptySession struct {
	id  string
	dir string   // host folder bash starts in
	env []string // bash's environment

	mu       sync.Mutex
	closing  bool
	pid      int           // 0: not running
	exitCode int           // -1 until bash exits (and when a signal ended it)
	done     chan struct{} // closed when bash exits; nil until it starts
	ptmx     *os.File
	// readers counts the goroutine that reads the pty, so that close
	// returns once it has stopped.
	readers sync.WaitGroup

	// connected is execd's exclusive WebSocket lock (LockWS/UnlockWS).
	connected atomic.Bool
	// evict closes the connection that holds the lock, for a takeover
	// (SetEvictHandler); evictGen tells one holder's hook from the next's.
	evictMu  sync.Mutex
	evict    func()
	evictGen uint64

	// outMu guards the replay buffer and the attached connection's sink
	// together, as execd's writeAndFanout and AttachOutputWithSnapshot do.
	outMu  sync.Mutex
	replay replayBuffer
	out    *io.PipeWriter
}

func newPTYSession(id, dir string, env []string) *ptySession {
	return &ptySession{id: id, dir: dir, env: env, exitCode: -1}
}

func (s *ptySession) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pid != 0
}

func (s *ptySession) exited() (<-chan struct{}, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done, s.exitCode
}

// setEvict registers the holder's eviction hook and returns its
// generation (SetEvictHandler).
func (s *ptySession) setEvict(fn func()) uint64 {
	s.evictMu.Lock()
	defer s.evictMu.Unlock()
	s.evictGen++
	s.evict = fn
	return s.evictGen
}

// clearEvict removes the hook of generation gen, not a successor's
// (ClearEvictHandler).
func (s *ptySession) clearEvict(gen uint64) {
	s.evictMu.Lock()
	defer s.evictMu.Unlock()
	if s.evictGen == gen {
		s.evict = nil
	}
}

// takeover evicts the lock's holder until the lock is won or timeout has
// passed (TakeoverWS).
func (s *ptySession) takeover(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if s.connected.CompareAndSwap(false, true) {
			return true
		}
		s.evictMu.Lock()
		evict := s.evict
		s.evictMu.Unlock()
		if evict != nil {
			evict()
		}
		if time.Now().After(deadline) {
			return s.connected.CompareAndSwap(false, true)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// start launches `bash --norc --noprofile` on a new pty of 80x24, as
// StartPTY does (pty.StartWithSize sets Setsid and Setctty).
func (s *ptySession) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.pid != 0:
		return errors.New("pty session already started")
	case s.closing:
		return errors.New("pty session is closing")
	}
	cmd := exec.Command("bash", "--norc", "--noprofile")
	cmd.Env = s.env
	cmd.Dir = s.dir
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
	if err != nil {
		return fmt.Errorf("pty.StartWithSize: %w", err)
	}
	s.ptmx, s.pid, s.done = ptmx, cmd.Process.Pid, make(chan struct{})
	s.readers.Add(1)
	go func() {
		defer s.readers.Done()
		s.broadcast(ptmx)
	}()
	go s.wait(cmd, ptmx, s.done)
	return nil
}

// broadcast reads the pty into the replay buffer and the attached
// connection (broadcastPTY, writeAndFanout).
func (s *ptySession) broadcast(ptmx *os.File) {
	buf := make([]byte, 32*1024)
	for {
		n, err := ptmx.Read(buf)
		if n > 0 {
			s.outMu.Lock()
			s.replay.write(buf[:n])
			w := s.out
			s.outMu.Unlock()
			if w != nil {
				_, _ = w.Write(buf[:n])
			}
		}
		if err != nil {
			return // EIO once bash has exited
		}
	}
}

// wait records bash's exit (waitAndExit): the pty is closed at once, so
// output bash wrote but nobody read yet is lost, as in execd.
func (s *ptySession) wait(cmd *exec.Cmd, ptmx *os.File, done chan struct{}) {
	_ = cmd.Wait()
	_ = ptmx.Close()
	s.mu.Lock()
	s.exitCode = cmd.ProcessState.ExitCode() // -1 when a signal ended it
	s.pid = 0
	s.mu.Unlock()
	close(done)
}

// writeStdin feeds the pty's master (WriteStdin).
func (s *ptySession) writeStdin(p []byte) (int, error) {
	s.mu.Lock()
	w := s.ptmx
	s.mu.Unlock()
	if w == nil {
		return 0, errors.New("session not started")
	}
	return w.Write(p)
}

// attach snapshots the replay buffer from since and attaches a new sink
// for live output, under one lock so no byte is lost or sent twice
// (AttachOutputWithSnapshot). detach closes the sink.
func (s *ptySession) attach(since int64) (out io.Reader, detach func(), snapshot []byte, offset int64) {
	r, w := io.Pipe()
	s.outMu.Lock()
	snapshot, offset = s.replay.readFrom(since)
	s.out = w
	s.outMu.Unlock()
	return r, func() {
		s.outMu.Lock()
		if s.out == w {
			s.out = nil
		}
		s.outMu.Unlock()
		_ = w.Close()
	}, snapshot, offset
}

// resize sets the pty's size (ResizePTY).
func (s *ptySession) resize(cols, rows uint16) error {
	s.mu.Lock()
	ptmx := s.ptmx
	s.mu.Unlock()
	if ptmx == nil {
		return nil
	}
	return pty.Setsize(ptmx, &pty.Winsize{Cols: cols, Rows: rows})
}

// signal sends a named signal to bash's process group (SendSignal,
// parseSignalName); other names are ignored.
func (s *ptySession) signal(name string) {
	sig, ok := map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM,
		"SIGKILL": syscall.SIGKILL, "SIGQUIT": syscall.SIGQUIT, "SIGHUP": syscall.SIGHUP}[name]
	s.mu.Lock()
	pid := s.pid
	s.mu.Unlock()
	if ok && pid != 0 {
		_ = syscall.Kill(-pid, sig)
	}
}

// close kills bash's process group and detaches the connection (close).
func (s *ptySession) close() {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.closing = true
	pid, ptmx, done := s.pid, s.ptmx, s.done
	s.mu.Unlock()
	if pid != 0 {
		killSession(pid)
	}
	if ptmx != nil {
		_ = ptmx.Close()
	}
	s.outMu.Lock()
	w := s.out
	s.out = nil
	s.outMu.Unlock()
	if w != nil {
		_ = w.Close()
	}
	// The read ends with EIO once the killed bash has let go of the pty,
	// which a blocked read does not see close: wait for both, a while.
	stopped := make(chan struct{})
	go func() {
		if done != nil {
			<-done
		}
		s.readers.Wait()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
	}
}

// ptyEnvironment is bash's environment: execd passes its own
// (os.Environ()), which holds the sandbox's env from create; the fake's is
// the host's, with HOME the sandbox's own /root folder and create's env on
// top. TERM is left out: the server creates containers without a tty
// (server/opensandbox_server/services/docker), so Docker sets none, and
// execd sets none either; bash's readline then takes the terminal for a
// dumb one (no bracketed paste).
func (sb *sandbox) ptyEnvironment() ([]string, error) {
	home := filepath.Join(sb.root, rel(execdHome))
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "TERM=") || strings.HasPrefix(kv, "HOME=")
	})
	env = append(env, "HOME="+home)
	return append(env, sb.environment(nil)...), nil
}

// replaySize is how much output a session keeps for a client that
// reattaches (components/execd/pkg/runtime/replay_buffer.go, replayBufferSize).
const replaySize = 1 << 20

// replayBuffer keeps the last replaySize bytes of a session's output and
// counts every byte ever written (replayBuffer).
type replayBuffer struct {
	kept  []byte
	total int64
}

func (r *replayBuffer) write(p []byte) {
	r.kept = append(r.kept, p...)
	if over := len(r.kept) - replaySize; over > 0 {
		r.kept = append(r.kept[:0], r.kept[over:]...)
	}
	r.total += int64(len(p))
}

// readFrom returns the bytes from offset on and the offset of the first:
// nothing at or past the end, the oldest kept byte on when offset is older
// (ReadFrom).
func (r *replayBuffer) readFrom(offset int64) ([]byte, int64) {
	if offset >= r.total {
		return nil, r.total
	}
	oldest := r.total - int64(len(r.kept))
	offset = max(offset, oldest)
	return append([]byte(nil), r.kept[offset-oldest:]...), offset
}

// killSession kills every process of the session bash leads: its own
// process group, and its jobs', which job control puts in groups of their
// own (a `sleep 100` that Ctrl-C did not reach would hold the pty open, and
// its reader with it, after bash is gone). In a container the same happens
// as the container stops.
func killSession(leader int) {
	_ = syscall.Kill(-leader, syscall.SIGKILL)
	for _, p := range fakekit.Processes() {
		if p.Session == leader {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
}
