package daytona_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// screen reads a terminal to its end in the background and keeps what it showed.
type screen struct {
	t    *testing.T
	pty  provider.PTY
	mu   sync.Mutex
	seen strings.Builder
	err  error // how Read ended
	done chan struct{}
}

func watch(t *testing.T, pty provider.PTY) *screen {
	s := &screen{t: t, pty: pty, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := pty.Read(buf)
			s.mu.Lock()
			s.seen.Write(buf[:n])
			if err != nil {
				s.err = err
			}
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = pty.Close()
		<-s.done
	})
	return s
}

// typeIn sends keys and waits until the screen shows want after them.
func (s *screen) typeIn(keys, want string) {
	s.t.Helper()
	s.mu.Lock()
	from := s.seen.Len()
	s.mu.Unlock()
	_, err := s.pty.Write([]byte(keys))
	require.NoError(s.t, err)
	require.Eventually(s.t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return strings.Contains(s.seen.String()[from:], want)
	}, 20*time.Second, 10*time.Millisecond, "after %q the screen shows %q; it shows %q (read: %v)", keys, want, s.text(), s.readErr())
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen.String()
}

func (s *screen) readErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// ended waits for Read's end and returns how it ended.
func (s *screen) ended() error {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.t.Fatalf("the terminal did not end; it shows %q", s.text())
	}
	return s.err
}

func openTerminal(t *testing.T, opts daytonatest.Options, size provider.TermSize) (*daytonatest.Server, provider.Instance, provider.PTY) {
	t.Helper()
	fake, client, inst := started(t, opts)
	pty, err := client.OpenTerminal(context.Background(), inst, size)
	require.NoError(t, err)
	return fake, inst, pty
}

func TestTerminalExitZero(t *testing.T) {
	_, _, pty := openTerminal(t, daytonatest.Options{}, provider.DefaultTermSize)
	s := watch(t, pty)
	s.typeIn("exit\n", "")
	assert.ErrorIs(t, s.ended(), io.EOF)
	assert.Equal(t, 0, pty.ExitCode())
}

// Close deletes the PTY session: the shell and what it started are killed.
func TestTerminalCloseKillsTheShell(t *testing.T) {
	fake, _, pty := openTerminal(t, daytonatest.Options{}, provider.DefaultTermSize)
	s := watch(t, pty)
	s.typeIn("sleep 1000 & echo pid=$!=\n", "")
	var found []string
	require.Eventually(t, func() bool {
		found = regexp.MustCompile(`pid=([0-9]+)=`).FindStringSubmatch(s.text())
		return found != nil
	}, 10*time.Second, 10*time.Millisecond, "%q", s.text())
	pid, err := strconv.Atoi(found[1])
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(pid, 0), "the job runs")

	require.NoError(t, pty.Close())
	assert.ErrorIs(t, s.ended(), io.EOF)
	assert.Equal(t, -1, pty.ExitCode())
	require.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, 5*time.Second, 10*time.Millisecond, "the job is killed")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeletePtySession))
	assert.NoError(t, pty.Close())
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeletePtySession), "a second Close sends nothing")
}

// ptySession is what the daemon says of a PTY session (PtySessionInfo).
type ptySession struct {
	ID        string            `json:"id"`
	Cwd       string            `json:"cwd"`
	Envs      map[string]string `json:"envs"`
	Cols      int               `json:"cols"`
	Rows      int               `json:"rows"`
	Active    bool              `json:"active"`
	LazyStart bool              `json:"lazyStart"`
}

// ptySessions lists the instance's PTY sessions, as the daemon has them.
func ptySessions(t *testing.T, fake *daytonatest.Server, inst provider.Instance) []ptySession {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, fake.ToolboxProxyURL()+"/"+inst.ID+"/process/pty", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+daytonatest.DefaultKey)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var list struct {
		Sessions []ptySession `json:"sessions"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
	return list.Sessions
}

// The session is made as the daemon's PtyCreateRequest says: its id ours,
// in the instance's folder, of the asked size, started by the connection.
func TestTerminalSessionRequest(t *testing.T) {
	fake, inst, pty := openTerminal(t, daytonatest.Options{}, provider.TermSize{Cols: 100, Rows: 30})
	watch(t, pty)
	list := ptySessions(t, fake, inst)
	require.Len(t, list, 1)
	got := list[0]
	assert.True(t, strings.HasPrefix(got.ID, "auxilia-terminal-"), got.ID)
	assert.Equal(t, inst.WorkDir, got.Cwd)
	assert.Equal(t, map[string]string{"TERM": "xterm-256color"}, got.Envs)
	assert.Equal(t, []int{100, 30}, []int{got.Cols, got.Rows})
	assert.True(t, got.Active)
	assert.True(t, got.LazyStart)
	assert.Equal(t, 1, fake.Calls(daytonatest.OpCreatePtySession))
	assert.Equal(t, 1, fake.Calls(daytonatest.OpConnectPtySession))
}

func TestTerminalWithoutASizeOpensAtTheDefault(t *testing.T) {
	fake, inst, pty := openTerminal(t, daytonatest.Options{}, provider.TermSize{})
	watch(t, pty)
	list := ptySessions(t, fake, inst)
	require.Len(t, list, 1)
	assert.Equal(t, []int{80, 24}, []int{list[0].Cols, list[0].Rows})
}

// The daemon reads at most 64 KiB a message and drops a client that sends
// more: a long paste goes in pieces, and the terminal lives on.
func TestTerminalLongInputGoesInPieces(t *testing.T) {
	_, _, pty := openTerminal(t, daytonatest.Options{}, provider.DefaultTermSize)
	s := watch(t, pty)
	// Raw input, so that the line discipline keeps every byte for head.
	s.typeIn("stty -icanon -echo; echo $((40+3))m; head -c 200000 >/dev/null; echo $((40+4))m\n", "43m")
	n, err := pty.Write([]byte(strings.Repeat("x", 200000)))
	require.NoError(t, err)
	require.Equal(t, 200000, n)
	s.typeIn("", "44m")
	s.typeIn("stty sane; echo $((40+5))m\n", "45m")
}

// The daemon's PTY handlers answer {"error": …}: its words reach the error.
func TestTerminalResizeRefusedInTheDaemonsWords(t *testing.T) {
	_, _, pty := openTerminal(t, daytonatest.Options{}, provider.DefaultTermSize)
	watch(t, pty)
	err := pty.Resize(context.Background(), provider.TermSize{Cols: 0, Rows: 40})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 400 Bad Request: Key: 'PTYResizeRequest.Cols' Error:Field validation for 'Cols' failed on the 'required' tag")
}

func TestTerminalResizeAfterTheEnd(t *testing.T) {
	_, _, pty := openTerminal(t, daytonatest.Options{}, provider.DefaultTermSize)
	s := watch(t, pty)
	s.typeIn("exit\n", "")
	s.ended()
	err := pty.Resize(context.Background(), provider.TermSize{Cols: 100, Rows: 30})
	assert.ErrorIs(t, err, provider.ErrGone)
}

// A daemon before PTY sessions answers gin's bare 404: the error says so.
func TestTerminalOnADaemonWithoutPTY(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{NoPTY: true})
	_, err := client.OpenTerminal(context.Background(), inst, provider.DefaultTermSize)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	assert.Contains(t, err.Error(), "no terminals")
	assert.Contains(t, err.Error(), "v0.107.0")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpCreatePtySession))
}

// A connection the toolbox refuses leaves no session behind.
func TestTerminalRefusedConnectionDeletesTheSession(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	fake.Inject(daytonatest.OpConnectPtySession, daytonatest.Fault{Status: http.StatusBadGateway, Times: 1})
	_, err := client.OpenTerminal(context.Background(), inst, provider.DefaultTermSize)
	require.Error(t, err)
	var perr *provider.Error
	require.True(t, errors.As(err, &perr), "%v", err)
	assert.Contains(t, err.Error(), "502")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeletePtySession))
}

// A terminal costs the toolbox one call to make its session, one to connect,
// one per resize and one to delete it: nothing more.
func TestTerminalCalls(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	fake.ResetCalls()
	pty, err := client.OpenTerminal(context.Background(), inst, provider.DefaultTermSize)
	require.NoError(t, err)
	s := watch(t, pty)
	require.NoError(t, pty.Resize(context.Background(), provider.TermSize{Cols: 120, Rows: 40}))
	require.NoError(t, pty.Close())
	s.ended()
	assert.Equal(t, map[string]int{daytonatest.OpCreatePtySession: 1, daytonatest.OpConnectPtySession: 1,
		daytonatest.OpResizePtySession: 1, daytonatest.OpDeletePtySession: 1}, fake.AllCalls())
}
