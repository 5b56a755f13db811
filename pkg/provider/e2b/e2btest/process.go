package e2btest

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/creack/pty"
)

// The messages of process.Process (packages/envd/spec/process/process.proto)
// as its JSON codec writes them.
type startRequest struct {
	Process struct {
		Cmd  string            `json:"cmd"`
		Args []string          `json:"args"`
		Envs map[string]string `json:"envs"`
		Cwd  *string           `json:"cwd"`
	} `json:"process"`
	Pty *struct {
		Size struct {
			Cols uint16 `json:"cols"`
			Rows uint16 `json:"rows"`
		} `json:"size"`
	} `json:"pty"`
	Stdin *bool `json:"stdin"`
}

type selector struct {
	Pid uint32 `json:"pid"`
}

// process is one process envd started.
type process struct {
	cmd   *exec.Cmd
	tty   *os.File       // the pty's master, for a pty process
	stdin io.WriteCloser // nil without stdin
	ended chan struct{}
}

// killSession kills the process and the session it leads, if it leads one.
func (p *process) killSession() {
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// event is a StartResponse.
type event map[string]any

func dataEvent(stream string, b []byte) event {
	return event{"event": map[string]any{"data": map[string]any{stream: b}}}
}

// startProcess serves process.Process/Start: it starts the process as
// envd does (handler.go in packages/envd/internal/services/process/handler),
// streams a start event with its pid, its output as it comes, and its end
// once its output is closed and it has exited; then ends the stream.
func (s *Server) startProcess(w http.ResponseWriter, r *http.Request, b *sandbox) {
	var req startRequest
	if err := readEnvelope(r.Body, &req); err != nil {
		writeConnectError(w, r, errorf("invalid_argument", "reading the request: %s", err))
		return
	}
	cwd := ""
	if req.Process.Cwd != nil {
		cwd = *req.Process.Cwd
	}
	dir, err := b.resolve(cwd)
	if err != nil {
		writeConnectError(w, r, err)
		return
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		writeConnectError(w, r, errorf("invalid_argument", "cwd '%s' does not exist", dir))
		return
	}
	cmd := exec.Command(req.Process.Cmd, req.Process.Args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+b.home(), "USER=user")
	for k, v := range b.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range req.Process.Envs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p := &process{cmd: cmd, ended: make(chan struct{})}
	events := make(chan event, 64)
	var readers sync.WaitGroup
	relay := func(stream string, from io.Reader) {
		readers.Add(1)
		go func() {
			defer readers.Done()
			buf := make([]byte, 32<<10)
			for {
				n, err := from.Read(buf)
				if n > 0 {
					events <- dataEvent(stream, append([]byte(nil), buf[:n]...))
				}
				if err != nil {
					return
				}
			}
		}()
	}
	if req.Pty != nil {
		tty, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: req.Pty.Size.Cols, Rows: req.Pty.Size.Rows})
		if err != nil {
			writeConnectError(w, r, errorf("internal", "error starting pty with command '%s': %s", req.Process.Cmd, err))
			return
		}
		p.tty = tty
		relay("pty", tty)
	} else {
		stdout, err1 := cmd.StdoutPipe()
		stderr, err2 := cmd.StderrPipe()
		var err3 error
		if req.Stdin == nil || *req.Stdin {
			p.stdin, err3 = cmd.StdinPipe()
		}
		if err := firstError(err1, err2, err3); err != nil {
			writeConnectError(w, r, errorf("internal", "%s", err))
			return
		}
		if err := cmd.Start(); err != nil {
			writeConnectError(w, r, errorf("internal", "error starting process '%s': %s", req.Process.Cmd, err))
			return
		}
		relay("stdout", stdout)
		relay("stderr", stderr)
	}
	pid := uint32(cmd.Process.Pid)
	b.procMu.Lock()
	b.procs[pid] = p
	b.procMu.Unlock()
	end := make(chan event, 1)
	go func() {
		readers.Wait()
		err := cmd.Wait()
		if p.tty != nil {
			_ = p.tty.Close()
		}
		st := cmd.ProcessState
		ev := map[string]any{"exitCode": st.ExitCode(), "exited": st.Exited(), "status": st.String()}
		if err != nil {
			ev["error"] = err.Error()
		}
		b.procMu.Lock()
		delete(b.procs, pid)
		b.procMu.Unlock()
		close(p.ended)
		end <- event{"event": map[string]any{"end": ev}}
	}()

	w.Header().Set("Content-Type", "application/connect+json")
	w.WriteHeader(http.StatusOK)
	if writeEnvelope(w, 0, event{"event": map[string]any{"start": map[string]any{"pid": pid}}}) != nil {
		go drain(events, p.ended)
		return
	}
	for {
		select {
		case ev := <-events:
			if writeEnvelope(w, 0, ev) != nil {
				go drain(events, p.ended)
				return
			}
		case ev := <-end:
			for more := true; more; {
				select {
				case ev := <-events:
					_ = writeEnvelope(w, 0, ev)
				default:
					more = false
				}
			}
			_ = writeEnvelope(w, 0, ev)
			writeEnd(w, nil)
			return
		case <-r.Context().Done():
			// The caller left: the process runs on, as envd's do.
			go drain(events, p.ended)
			return
		}
	}
}

// drain takes the output of a process nobody streams any more.
func drain(events chan event, ended chan struct{}) {
	for {
		select {
		case <-events:
		case <-ended:
			return
		}
	}
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *sandbox) process(sel selector) (*process, error) {
	b.procMu.Lock()
	defer b.procMu.Unlock()
	p := b.procs[sel.Pid]
	if p == nil {
		return nil, errorf("not_found", "process with pid %d not found", sel.Pid)
	}
	return p, nil
}

// sendSignal signals the one process (service.go's SendSignal: SIGKILL
// or SIGTERM, nothing else).
func (b *sandbox) sendSignal(req struct {
	Process selector `json:"process"`
	Signal  string   `json:"signal"`
}) (any, error) {
	p, err := b.process(req.Process)
	if err != nil {
		return nil, err
	}
	sig := map[string]syscall.Signal{"SIGNAL_SIGKILL": syscall.SIGKILL, "SIGNAL_SIGTERM": syscall.SIGTERM}[req.Signal]
	if sig == 0 {
		return nil, errorf("unimplemented", "invalid signal: %s", req.Signal)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return nil, errorf("internal", "error sending signal: %s", err)
	}
	return struct{}{}, nil
}

// sendInput writes to the process's pty or stdin.
func (b *sandbox) sendInput(req struct {
	Process selector `json:"process"`
	Input   struct {
		Stdin []byte `json:"stdin"`
		Pty   []byte `json:"pty"`
	} `json:"input"`
}) (any, error) {
	p, err := b.process(req.Process)
	if err != nil {
		return nil, err
	}
	switch {
	case req.Input.Pty != nil && p.tty != nil:
		_, err = p.tty.Write(req.Input.Pty)
	case req.Input.Stdin != nil && p.stdin != nil:
		_, err = p.stdin.Write(req.Input.Stdin)
	default:
		return nil, errorf("failed_precondition", "the process has no such input")
	}
	if err != nil {
		return nil, errorf("internal", "error writing input: %s", err)
	}
	return struct{}{}, nil
}

// update resizes the process's pty.
func (b *sandbox) update(req struct {
	Process selector `json:"process"`
	Pty     *struct {
		Size struct {
			Cols uint16 `json:"cols"`
			Rows uint16 `json:"rows"`
		} `json:"size"`
	} `json:"pty"`
}) (any, error) {
	p, err := b.process(req.Process)
	if err != nil {
		return nil, err
	}
	if req.Pty != nil && p.tty != nil {
		if err := pty.Setsize(p.tty, &pty.Winsize{Cols: req.Pty.Size.Cols, Rows: req.Pty.Size.Rows}); err != nil {
			return nil, errorf("internal", "error resizing tty: %s", err)
		}
	}
	return struct{}{}, nil
}
