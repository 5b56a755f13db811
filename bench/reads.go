package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// comparison is one route measured on the server and on the floor.
type comparison struct {
	Route         string
	Ours, Floor   series
	OursSessions  int64 // Postgres sessions opened while measuring
	FloorSessions int64
	OursCPU       cpuUse // CPU time spent while the requests were recorded
	FloorCPU      cpuUse
}

type readResults struct {
	Sandboxes int
	Compared  int // answers compared byte for byte, all identical
	List, Get comparison
}

func measureReads(ctx context.Context, cfg config, s *stack) (readResults, error) {
	res := readResults{Sandboxes: cfg.Sandboxes}
	ids, err := registerSandboxes(ctx, s.ours, cfg.Sandboxes)
	if err != nil {
		return res, err
	}
	paths := []string{"/api/v1/sandboxes"}
	for _, id := range ids {
		paths = append(paths, "/api/v1/sandboxes/"+id)
	}
	if res.Compared, err = compareAnswers(ctx, s, paths); err != nil {
		return res, err
	}
	logf("  the floor's %d answers are byte for byte the server's", res.Compared)

	list := func(a api) request {
		return func(ctx context.Context, _, _ int) error {
			_, err := a.call(ctx, http.MethodGet, "/api/v1/sandboxes", nil, http.StatusOK)
			return err
		}
	}
	get := func(a api) request {
		return func(ctx context.Context, worker, i int) error {
			// Workers walk the sandboxes from different places.
			id := ids[(worker*7+i)%len(ids)]
			_, err := a.call(ctx, http.MethodGet, "/api/v1/sandboxes/"+id, nil, http.StatusOK)
			return err
		}
	}
	loop := closedLoop{concurrency: cfg.Concurrency, warmup: cfg.Warmup, window: cfg.Window}
	if res.List, err = compare(ctx, cfg, s, loop, "GET /api/v1/sandboxes", list); err != nil {
		return res, err
	}
	if res.Get, err = compare(ctx, cfg, s, loop, "GET /api/v1/sandboxes/{id}", get); err != nil {
		return res, err
	}
	return res, nil
}

// compare loads the route on the server and on the floor, alternating
// which goes first in each round so that drift on a busy machine falls on both.
func compare(ctx context.Context, cfg config, s *stack, loop closedLoop, route string, req func(api) request) (comparison, error) {
	c := comparison{Route: route}
	measure := func(a api, p *process, into *series, sessions *int64, cpu *cpuUse) error {
		n, err := s.countSessions(ctx, func() {
			spent := measureCPU(p.cmd.Process.Pid, s.db.name, loop)
			into.merge(loop.run(ctx, req(a)))
			cpu.add(spent())
		})
		*sessions += n
		return err
	}
	for round := range cfg.Rounds {
		first, second := func() error { return measure(s.ours, s.server, &c.Ours, &c.OursSessions, &c.OursCPU) },
			func() error { return measure(s.base, s.floor, &c.Floor, &c.FloorSessions, &c.FloorCPU) }
		if round%2 == 1 {
			first, second = second, first
		}
		if err := first(); err != nil {
			return c, err
		}
		if err := second(); err != nil {
			return c, err
		}
	}
	c.Ours.seal()
	c.Floor.seal()
	logf("  %s: ours %.0f/s p50 %s p99 %s; floor %.0f/s p50 %s p99 %s; throughput ours / floor %.2f×", route,
		c.Ours.throughput(), ms(c.Ours.quantile(.5)), ms(c.Ours.quantile(.99)),
		c.Floor.throughput(), ms(c.Floor.quantile(.5)), ms(c.Floor.quantile(.99)), c.Ours.throughput()/c.Floor.throughput())
	if c.Ours.errors > 0 || c.Floor.errors > 0 {
		return c, fmt.Errorf("%s failed: ours %s; floor %s", route, c.Ours.errorSummary(3), c.Floor.errorSummary(3))
	}
	return c, nil
}

// registerSandboxes registers n sandboxes of the three remote providers,
// each with a secret and a config of its own, and returns their ids.
func registerSandboxes(ctx context.Context, a api, n int) ([]string, error) {
	ids := make([]string, 0, n)
	for i := range n {
		var spec map[string]any
		switch i % 3 {
		case 0:
			spec = map[string]any{"provider": "opensandbox", "url": fmt.Sprintf("sandbox-%02d.internal:8083", i),
				"secret": fmt.Sprintf("osk-team-%02d-0123456789", i),
				"config": map[string]any{"default_packages": []string{"pandas==2.2.*", "numpy>=2"}, "volume_mounts": []string{"/srv/datasets:/data:ro"}}}
		case 1:
			spec = map[string]any{"provider": "daytona", "secret": fmt.Sprintf("dtn_%02d_0123456789abcdefWXYZ", i),
				"config": map[string]any{"target": "eu", "auto_stop_interval": 30}}
		default:
			spec = map[string]any{"provider": "cloudrun", "url": fmt.Sprintf("https://sandbox-gateway-%02d-uc.a.run.app", i),
				"secret": fmt.Sprintf("gateway-secret-%02d-0123456789", i), "config": map[string]any{"gcs_bucket": "acme-sandboxes"}}
		}
		spec["name"] = fmt.Sprintf("Sandbox %02d", i)
		spec["description"] = fmt.Sprintf("Team %d's %s sandbox", i, spec["provider"])
		id, err := a.createSandbox(ctx, spec)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// compareAnswers checks that the floor writes what the server writes, so
// that the floor does the same work; it returns how many answers it compared.
func compareAnswers(ctx context.Context, s *stack, paths []string) (int, error) {
	for _, p := range paths {
		ours, err := s.ours.call(ctx, http.MethodGet, p, nil, http.StatusOK)
		if err != nil {
			return 0, fmt.Errorf("server: GET %s: %w", p, err)
		}
		floor, err := s.base.call(ctx, http.MethodGet, p, nil, http.StatusOK)
		if err != nil {
			return 0, fmt.Errorf("floor: GET %s: %w", p, err)
		}
		if !bytes.Equal(ours, floor) {
			return 0, fmt.Errorf("GET %s: the floor's answer differs from the server's at byte %d:\nserver: %s\nfloor:  %s",
				p, firstDifference(ours, floor), around(ours, firstDifference(ours, floor)), around(floor, firstDifference(ours, floor)))
		}
		if p == paths[0] {
			var list struct{ Items []json.RawMessage }
			want := min(len(paths)-1, floorPageSize)
			if err := json.Unmarshal(ours, &list); err != nil || len(list.Items) != want {
				return 0, fmt.Errorf("GET %s: want %d sandboxes in the first page, got %d (%v)", p, want, len(list.Items), err)
			}
		}
	}
	return len(paths), nil
}

func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func around(b []byte, i int) string {
	from, to := max(i-60, 0), min(i+60, len(b))
	return string(b[from:to])
}

// pause lets the machine settle between phases (connections close, the
// server's and Postgres's background work catches up).
func pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(500 * time.Millisecond):
	}
}
