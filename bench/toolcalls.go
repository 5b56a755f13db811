package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
)

// The tool call measured: what an agent's first look around costs.
const (
	toolCommand = "echo hi"
	// toolTimeout is the sandbox's command timeout, in seconds: the server
	// sends it with every command, and so does the direct call.
	toolTimeout = 60
	// execdPort is the port execd listens on in every OpenSandbox sandbox.
	execdPort = 44772
)

// toolCallResults compares a tool call through the server with the same
// command sent straight to the provider's daemon, on each database.
type toolCallResults struct {
	Workers  int            // of the throughput loops
	Direct   toolCallLoad   // straight to execd
	Embedded toolCallLoad   // through the server on its embedded database
	Postgres toolCallLoad   // through the server on Postgres
	Commits  float64        // Postgres transactions a tool call, through the server on Postgres
	Rows     float64        // rows it inserts, updates and deletes
	Calls    map[string]int // the fake's calls during the counted tool calls on Postgres
	Counted  int            // tool calls counted for Commits and Calls
}

// toolCallLoad is one way of making the call: alone, then with workers.
type toolCallLoad struct{ Alone, Loaded toolCallSide }

// toolCallSide is one load of one way, and the CPU its server and Postgres spent.
type toolCallSide struct {
	series
	CPU cpuUse
}

func measureToolCalls(ctx context.Context, cfg config, s *stack, tmp string) (toolCallResults, error) {
	res := toolCallResults{Workers: cfg.ToolWorkers}
	dir, err := os.MkdirTemp(tmp, "opensandbox-")
	if err != nil {
		return res, err
	}
	fake := opensandboxtest.NewIn(dir, opensandboxtest.Options{Execd: cfg.Execd})
	defer fake.Close()

	runOn := func(a api) (string, error) {
		before := fake.Sandboxes()
		sandboxID, err := a.createSandbox(ctx, map[string]any{
			"name": "OpenSandbox (fake)", "provider": "opensandbox", "url": fake.URL, "secret": "osk-bench-0123456789",
			// Straight to execd's endpoint, as the direct calls go: the
			// controller's proxy would be one more hop than theirs.
			"config": map[string]any{"timeout": toolTimeout, "use_server_proxy": false}})
		if err != nil {
			return "", err
		}
		agentID, err := a.createAgent(ctx, "Tool agent")
		if err != nil {
			return "", err
		}
		if err := a.bind(ctx, agentID, sandboxID); err != nil {
			return "", err
		}
		run, err := a.startRunView(ctx, agentID, "tools")
		if err != nil {
			return "", err
		}
		if len(fake.Sandboxes()) != len(before)+1 {
			return "", fmt.Errorf("the run made %d sandboxes at the fake, not one", len(fake.Sandboxes())-len(before))
		}
		return run.ID, nil
	}
	embeddedRun, err := runOn(s.oursEmbedded)
	if err != nil {
		return res, fmt.Errorf("embedded database: %w", err)
	}
	before := fake.Sandboxes()
	postgresRun, err := runOn(s.ours)
	if err != nil {
		return res, fmt.Errorf("postgres: %w", err)
	}
	direct, err := newDirectExecd(ctx, fake, newSandbox(before, fake.Sandboxes()))
	if err != nil {
		return res, err
	}

	// The three ways take turns request by request, so that a busy
	// machine's drift falls on each alike.
	ways := []func(context.Context) error{
		direct.execute,
		func(ctx context.Context) error { return s.oursEmbedded.execute(ctx, embeddedRun, toolCommand) },
		func(ctx context.Context) error { return s.ours.execute(ctx, postgresRun, toolCommand) },
	}
	measure := func(l closedLoop) (straight, embedded, onPostgres toolCallSide, err error) {
		pause(ctx)
		embeddedCPU := measureCPU(s.embedded.cmd.Process.Pid, s.db.name, l)
		postgresCPU := measureCPU(s.server.cmd.Process.Pid, s.db.name, l)
		got := l.runMixed(ctx, len(ways), func(ctx context.Context, _, _, way int) error { return ways[way](ctx) })
		embedded = toolCallSide{got[1], cpuUse{Process: embeddedCPU().Process}}
		onPostgres = toolCallSide{got[2], postgresCPU()}
		straight = toolCallSide{series: got[0]}
		logf("  %d in flight: straight to execd p50 %s p99 %s; through us, embedded p50 %s p99 %s; on Postgres p50 %s p99 %s",
			l.concurrency, ms(got[0].quantile(.5)), ms(got[0].quantile(.99)), ms(got[1].quantile(.5)), ms(got[1].quantile(.99)),
			ms(got[2].quantile(.5)), ms(got[2].quantile(.99)))
		if e := errorsOf(got...); e != "" {
			err = fmt.Errorf("tool calls failed: %s", e)
		}
		return straight, embedded, onPostgres, err
	}
	// A command costs tens of milliseconds: each load is recorded as long
	// as all the rounds of a read, for enough calls of each way.
	window := cfg.Window * time.Duration(cfg.Rounds)
	alone := closedLoop{concurrency: 1, warmup: cfg.Warmup, window: window}
	loaded := closedLoop{concurrency: cfg.ToolWorkers * len(ways), warmup: cfg.Warmup, window: window}
	if res.Direct.Alone, res.Embedded.Alone, res.Postgres.Alone, err = measure(alone); err != nil {
		return res, err
	}
	if res.Direct.Loaded, res.Embedded.Loaded, res.Postgres.Loaded, err = measure(loaded); err != nil {
		return res, err
	}

	// Transactions a tool call commits, counted apart from the timed loads:
	// Postgres counts its commits a database, and reports them late.
	res.Counted = max(cfg.WarmRuns/2, 20)
	pause(ctx)
	fake.ResetCalls()
	did, err := s.db.countActivity(ctx, func() error {
		for range res.Counted {
			if err := s.ours.execute(ctx, postgresRun, toolCommand); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	res.Commits = float64(did.Commits) / float64(res.Counted)
	res.Rows = float64(did.RowsWritten) / float64(res.Counted)
	res.Calls = map[string]int{}
	for op, n := range fake.AllCalls() {
		res.Calls[string(op)] = n
	}
	logf("  a tool call: %.1f Postgres transactions, %.1f rows written", res.Commits, res.Rows)
	return res, nil
}

// newSandbox is the id in after that is not in before.
func newSandbox(before, after []string) string {
	for _, id := range after {
		if !slices.Contains(before, id) {
			return id
		}
	}
	return ""
}

func errorsOf(ss ...series) string {
	var all series
	for _, s := range ss {
		all.merge(s)
	}
	return all.errorSummary(3)
}

// directExecd sends the server's command request straight to a sandbox's
// execd, as the server's OpenSandbox client does, and reads its event
// stream to the command's end.
type directExecd struct {
	url  string
	body []byte
	http *http.Client
}

func newDirectExecd(ctx context.Context, fake *opensandboxtest.Server, sandboxID string) (directExecd, error) {
	if sandboxID == "" {
		return directExecd{}, errors.New("no sandbox at the fake for the direct calls")
	}
	var ep struct{ Endpoint string }
	lifecycle := api{base: fake.URL, http: http.DefaultClient}
	if err := lifecycle.callJSON(ctx, http.MethodGet, fmt.Sprintf("/sandboxes/%s/endpoints/%d", sandboxID, execdPort), nil, http.StatusOK, &ep); err != nil {
		return directExecd{}, err
	}
	// The body the server's client sends (pkg/provider/opensandbox execute.go).
	body, err := json.Marshal(map[string]any{"command": toolCommand, "cwd": "/workspace", "timeout": toolTimeout * 1000})
	if err != nil {
		return directExecd{}, err
	}
	return directExecd{url: "http://" + ep.Endpoint + "/command", body: body, http: newHTTPClient(16)}, nil
}

// execute runs the command and reads its events until the one that ends
// it, as the server's client does: execd holds the stream open a second
// longer, which no caller waits for.
func (d directExecd) execute(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.url, bytes.NewReader(d.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := d.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return &statusError{status: res.StatusCode}
	}
	events := opensandbox.NewEventReader(res.Body)
	for {
		ev, err := events.Next()
		if err != nil {
			return fmt.Errorf("execd's stream: %w", err)
		}
		switch ev.Type {
		case opensandbox.EventTypeComplete:
			return nil
		case opensandbox.EventTypeError:
			return errors.New("execd: the command failed")
		}
	}
}
