package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// listening is the log line a server writes once it accepts connections
// (the binary's, and the floor's, which logs the same way).
var listening = regexp.MustCompile(`"msg":"listening","url":"(http://[^"]+)"`)

// process is a server the bench started: the real binary, or the floor.
type process struct {
	name string
	cmd  *exec.Cmd
	URL  string
	done chan struct{}
	err  error // how it exited, once done is closed

	mu         sync.Mutex
	tail       []string       // its last log lines, for when it fails
	errorLines map[string]int // its error-level log messages → count
}

// startProcess runs bin with args and env and waits until it logs that it listens.
func startProcess(ctx context.Context, name, bin string, args, env []string) (*process, error) {
	p := &process{name: name, done: make(chan struct{}), errorLines: map[string]int{}}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env = env
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	urls := make(chan string, 1)
	go func() {
		p.readLog(stderr, urls)
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	select {
	case p.URL = <-urls:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("%s exited before listening (%v):\n%s", name, p.err, p.logTail())
	case <-time.After(60 * time.Second):
		p.stop()
		return nil, fmt.Errorf("%s did not listen within a minute:\n%s", name, p.logTail())
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}
}

// errorMessage picks the message and error out of a JSON log line at level ERROR.
var errorMessage = regexp.MustCompile(`"level":"ERROR","msg":"([^"]*)"(?:.*"error":"([^"]*)")?`)

// ephemeralPort matches the client side of a connection in an error
// message, which differs from connection to connection.
var ephemeralPort = regexp.MustCompile(`(\d+\.\d+\.\d+\.\d+):\d+->`)

// benchDatabase matches the run's database name, which differs from run to run.
var benchDatabase = regexp.MustCompile(`auxilia_bench_[0-9a-f]+`)

func (p *process) readLog(r io.Reader, urls chan<- string) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	announced := false
	for sc.Scan() {
		line := sc.Text()
		if !announced {
			if m := listening.FindStringSubmatch(line); m != nil {
				announced = true
				urls <- m[1]
			}
		}
		p.mu.Lock()
		if msg, ok := errorOf(line); ok {
			p.errorLines[msg]++
		}
		p.tail = append(p.tail, line)
		if len(p.tail) > 40 {
			p.tail = p.tail[1:]
		}
		p.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r)
}

// errorOf returns the message of an error-level log line, with what differs
// from one occurrence to the next (ports, the run's database) left out.
func errorOf(line string) (string, bool) {
	// The server logs every request: look closer only at errors.
	if !strings.Contains(line, `"level":"ERROR"`) {
		return "", false
	}
	m := errorMessage.FindStringSubmatch(line)
	if m == nil {
		return "", false
	}
	msg := m[1]
	if m[2] != "" {
		msg += ": " + m[2]
	}
	msg = ephemeralPort.ReplaceAllString(msg, "$1:…->")
	return benchDatabase.ReplaceAllString(msg, "auxilia_bench_…"), true
}

func (p *process) logTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.tail, "\n")
}

// takeErrorLines returns the error-level log messages since the last call.
func (p *process) takeErrorLines() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.errorLines
	p.errorLines = map[string]int{}
	return out
}

// stop asks the process to shut down and kills it if it takes too long.
func (p *process) stop() {
	if p.cmd.Process == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// memory is a process's resident set size, now and at its highest.
type memory struct {
	rss, peak int64 // bytes
}

// readMemory reads VmRSS and VmHWM from /proc.
func (p *process) readMemory() (memory, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return memory{}, err
	}
	var m memory
	for _, line := range strings.Split(string(raw), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			m.rss = kb << 10
		case "VmHWM":
			m.peak = kb << 10
		}
	}
	if m.rss == 0 {
		return m, errors.New("no VmRSS in /proc status")
	}
	return m, nil
}

// watchMemory samples the process's RSS every interval until stop is
// called, which returns the highest sample.
func (p *process) watchMemory(interval time.Duration) (stop func() int64) {
	var highest int64
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if m, err := p.readMemory(); err == nil {
				highest = max(highest, m.rss)
			}
			select {
			case <-quit:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(quit)
		<-finished
		return highest
	}
}
