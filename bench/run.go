package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// results is everything the report shows.
type results struct {
	Config    config
	Started   time.Time
	Took      time.Duration
	Machine   machine
	Reads     readResults
	ToolCalls toolCallResults
	Runs      runResults
	Pools     poolResults
	Local     localResults
	Writes    writeResults
	GoBench   []goBenchPackage
	PhaseDur  map[string]time.Duration
}

// stack is what a run starts: the real binary on a fresh database, and the
// floor; and the same binary on its embedded database.
type stack struct {
	db     *database
	bin    string   // the server's binary
	env    []string // the server's environment
	tmp    string   // the run's folder
	server *process
	floor  *process
	ours   api // with the admin token
	base   api // the floor, with the same token

	embedded     *process // the binary on its embedded SQLite database, with the local provider
	oursEmbedded api
}

func run(ctx context.Context, cfg config) error {
	res := results{Config: cfg, Started: time.Now().UTC(), PhaseDur: map[string]time.Duration{}}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	res.Machine = describeMachine(ctx, cfg.Postgres)

	tmp, err := os.MkdirTemp("", "auxilia-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var s *stack
	phase := func(name string, fn func() error) error {
		logf("%s …", name)
		start := time.Now()
		err := fn()
		res.PhaseDur[name] = time.Since(start)
		if err != nil {
			return fmt.Errorf("%s: %w%s", name, err, s.exitNotice())
		}
		return nil
	}

	bin := filepath.Join(tmp, "auxilia")
	if err := phase("build", func() error { return build(ctx, root, bin) }); err != nil {
		return err
	}
	err = phase("start", func() error {
		var err error
		s, err = startStack(ctx, cfg, bin, tmp)
		return err
	})
	if s != nil {
		defer s.close()
	}
	if err != nil {
		return err
	}
	// The server's phases, in order. The local provider's needs bubblewrap
	// and Python on this machine: where it cannot run, the report says why
	// and the others go on.
	for _, p := range []struct {
		name    string
		measure func() error
	}{
		{"reads", func() (err error) { res.Reads, err = measureReads(ctx, cfg, s); return err }},
		{"toolcalls", func() (err error) { res.ToolCalls, err = measureToolCalls(ctx, cfg, s, tmp); return err }},
		{"runs", func() (err error) { res.Runs, err = measureRuns(ctx, cfg, s); return err }},
		{"pools", func() (err error) { res.Pools, err = measurePools(ctx, cfg, s); return err }},
		{"local", func() error {
			var err error
			if res.Local, err = measureLocal(ctx, cfg, s); err != nil {
				res.Local.Failure = err.Error()
				logf("local: %v (the report says so and goes on)", err)
			}
			return nil
		}},
		{"writes", func() (err error) { res.Writes, err = measureWrites(ctx, cfg, s); return err }},
	} {
		if !cfg.runs(p.name) {
			logf("%s: skipped (-only)", p.name)
			continue
		}
		if err := phase(p.name, p.measure); err != nil {
			return err
		}
	}
	s.close()

	if cfg.BenchTime != "" && cfg.runs("gobench") {
		err := phase("go benchmarks", func() error {
			pkgs, err := benchPackages(root)
			if err != nil {
				return err
			}
			res.GoBench = runGoBenchmarks(ctx, root, pkgs, cfg.BenchTime, cfg.BenchCount)
			return nil
		})
		if err != nil {
			logf("%v (the report goes without them)", err)
		}
	}
	res.Took = time.Since(res.Started)
	if cfg.Only != nil && !cfg.OutGiven {
		logf("a partial run (-only): no report written (give -out to write one)")
		return nil
	}
	out := cfg.Out
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	if err := writeReport(out, res); err != nil {
		return err
	}
	logf("wrote %s (the run took %s)", out, res.Took.Round(time.Second))
	return nil
}

// moduleRoot is the folder of the go.mod the bench belongs to.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run the bench inside the module (go run ./bench)")
	}
	return filepath.Dir(mod), nil
}

func build(ctx context.Context, root, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/auxilia")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/auxilia: %w\n%s", err, out)
	}
	return nil
}

// startStack makes the database and starts the server and the floor on it.
func startStack(ctx context.Context, cfg config, bin, tmp string) (*stack, error) {
	keyOut, err := exec.CommandContext(ctx, bin, "keys", "generate").Output()
	if err != nil {
		return nil, fmt.Errorf("auxilia keys generate: %w", err)
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	token := "aux_" + base64.RawURLEncoding.EncodeToString(raw)

	s := &stack{bin: bin, tmp: tmp}
	if s.db, err = createDatabase(ctx, cfg.Postgres); err != nil {
		return nil, err
	}
	common := append(cleanEnv(),
		"AUXILIA_SECRET_KEYS="+strings.TrimSpace(string(keyOut)),
		"AUXILIA_BOOTSTRAP_TOKEN="+token,
		"AUXILIA_LISTEN=127.0.0.1:0",
	)
	s.env = append(slices.Clip(common), "DATABASE_URL="+s.db.URL, "AUXILIA_LOCAL_PROVIDER=off",
		"AUXILIA_DATA_DIR="+filepath.Join(tmp, "data"))
	if s.server, err = startProcess(ctx, "auxilia", bin, []string{"serve"}, s.env); err != nil {
		return s, err
	}
	// Without DATABASE_URL the binary keeps its data in SQLite in its data
	// folder, as a first install does, with the local provider on.
	embeddedEnv := append(slices.Clip(common), "AUXILIA_DATA_DIR="+filepath.Join(tmp, "embedded"))
	if s.embedded, err = startProcess(ctx, "auxilia (embedded database)", bin, []string{"serve"}, embeddedEnv); err != nil {
		return s, err
	}
	// The floor starts after the server, which has migrated the database by then.
	self, err := os.Executable()
	if err != nil {
		return s, err
	}
	floorEnv := append(cleanEnv(), "DATABASE_URL="+s.db.URL)
	if s.floor, err = startProcess(ctx, "floor", self, []string{"floor", "-conns", strconv.Itoa(cfg.Concurrency), "-latency", cfg.Latency.String(),
		"-provider-key", daytonatest.DefaultKey}, floorEnv); err != nil {
		return s, err
	}
	client := newHTTPClient(cfg.Concurrency)
	s.ours = api{base: s.server.URL, token: token, http: client}
	s.base = api{base: s.floor.URL, token: token, http: client}
	s.oursEmbedded = api{base: s.embedded.URL, token: token, http: client}
	return s, nil
}

// cleanEnv is this process's environment without the server's settings, so
// that a developer's own AUXILIA_* or DATABASE_URL cannot change a run.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AUXILIA_") || strings.HasPrefix(kv, "DATABASE_URL=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// exitNotice tells, when a server has exited, how it ended and what it
// logged last: the likely reason a phase failed.
func (s *stack) exitNotice() string {
	if s == nil {
		return ""
	}
	for _, p := range []*process{s.server, s.embedded} {
		if p == nil {
			continue
		}
		select {
		case <-p.done:
			return fmt.Sprintf("\n(%s exited: %v; its last log lines:)\n%s", p.name, p.err, p.logTail())
		default:
		}
	}
	return ""
}

// close stops what the stack started and drops its database; calling it again does nothing.
func (s *stack) close() {
	if s.floor != nil {
		s.floor.stop()
		s.floor = nil
	}
	for _, p := range []**process{&s.server, &s.embedded} {
		if *p != nil {
			(*p).stop()
			*p = nil
		}
	}
	if s.db != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.db.drop(ctx); err != nil {
			logf("drop database %s: %v", s.db.name, err)
		}
		s.db = nil
	}
}
