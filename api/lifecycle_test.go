package api_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// movedClock is the idle job's clock, moved on by the test: threads go
// idle without the test waiting.
type movedClock struct{ ahead atomic.Int64 }

func (c *movedClock) now() time.Time          { return time.Now().Add(time.Duration(c.ahead.Load())) }
func (c *movedClock) moveOn(by time.Duration) { c.ahead.Add(int64(by)) }

// lifecycleProvider is what the end-to-end test needs of a provider beyond the API.
type lifecycleProvider struct {
	sandbox func(e *env) map[string]any // a sandbox's fields; its config, if any, gets the walk's lifecycle keys
	paused  func(e *env, ref string) bool
	expire  func(e *env, ref string) // the instance goes behind the server's back
	calls   func() int               // provider calls so far (-1: not counted)
	kept    func() int               // kept files at the provider (-1: not counted)
	sized   bool                     // the provider says how big kept files are, which the usage meters
}

// threadLifecycle drives one thread through idleness: a file written,
// the thread idle, its instance paused at the provider, a run resumes it
// with the file there; then, with keep_files always, its instance expires
// behind the server's back and a run restores the file (notice: restored);
// with until_expiry, the notice says replaced and the file is gone.
func threadLifecycle(t *testing.T, e *env, clock *movedClock, p lifecycleProvider) {
	ctx := context.Background()
	start := func(agentID string) map[string]any {
		// Sent unchecked: openapi.yaml names only the built-in providers, not echo.
		r := e.send("POST", "/api/v1/agents/"+agentID+"/threads/conv-1/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		return r.json(t)
	}
	exec := func(r map[string]any, command string) string {
		res := e.call("POST", "/api/v1/runs/"+r["id"].(string)+"/execute", e.member, map[string]any{"command": command}).json(t)
		return res["output"].(string)
	}
	thread := func(agentID string) map[string]any {
		return e.call("GET", "/api/v1/agents/"+agentID+"/threads/conv-1", e.member, nil).json(t)
	}
	bound := func(name string, config map[string]any) string {
		fields := p.sandbox(e)
		merged := map[string]any{}
		if own, ok := fields["config"].(map[string]any); ok {
			maps.Copy(merged, own)
		}
		maps.Copy(merged, config)
		fields["name"], fields["config"] = name, merged
		r := e.send("POST", "/api/v1/sandboxes", e.admin, fields)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		sb := r.json(t)
		agent := e.createAgent(name)
		r = e.send("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member,
			map[string]any{"sandbox_id": sb["id"], "tools": allAllowed})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		return agent["id"].(string)
	}
	idle := func() run.IdleReport {
		clock.moveOn(2 * time.Minute)
		rep, err := e.app.Runs.Idle(ctx)
		require.NoError(t, err)
		return rep
	}

	agent := bound("Keeper", map[string]any{"idle_minutes": 1, "keep_files": "always"})
	first := start(agent)
	ref := first["sandbox"].(map[string]any)["instance_id"].(string)
	exec(first, "echo before > kept.txt")
	th := thread(agent)
	assert.Equal(t, "running", th["state"])
	require.NotNil(t, th["pauses_at"], "a thread that pauses says when")

	assert.Equal(t, run.IdleReport{Kept: 1, Paused: 1}, idle())
	assert.True(t, p.paused(e, ref), "paused at the provider")
	th = thread(agent)
	assert.Equal(t, "paused", th["state"])
	assert.NotNil(t, th["kept"])
	if bytes := keptBytes(t, e); p.sized {
		assert.Positive(t, bytes, "the kept files' size, as the provider said it")
	} else {
		assert.Zero(t, bytes, "a provider that does not say how big kept files are meters none")
	}

	before := p.calls()
	resumed := start(agent)
	assert.Nil(t, resumed["notice"], "a resumed thread has no notice")
	assert.Equal(t, ref, resumed["sandbox"].(map[string]any)["instance_id"], "resumed, not replaced")
	assert.False(t, p.paused(e, ref))
	assert.Equal(t, "before\n", exec(resumed, "cat kept.txt"))
	warm := p.calls()
	start(agent)
	if before >= 0 {
		assert.Equal(t, 1, p.calls()-warm, "a warm run costs one provider call")
	}

	busy := start(agent)
	exec(busy, "echo after > kept.txt")
	assert.Equal(t, run.IdleReport{Kept: 1, Paused: 1}, idle(), "kept again: files changed since")
	assert.True(t, p.paused(e, ref))
	assert.Equal(t, "after\n", exec(busy, "cat kept.txt"), "a tool call of a run still active resumes its instance")
	assert.False(t, p.paused(e, ref))
	p.expire(e, ref)
	restored := start(agent)
	require.NotNil(t, restored["notice"])
	assert.Contains(t, restored["notice"], "restored from its files kept at")
	assert.NotEqual(t, ref, restored["sandbox"].(map[string]any)["instance_id"])
	assert.Equal(t, "after\n", exec(restored, "cat kept.txt"))
	assert.Equal(t, "running", thread(agent)["state"])

	plain := bound("Forgetful", map[string]any{"idle_minutes": 1})
	gone := start(plain)
	goneRef := gone["sandbox"].(map[string]any)["instance_id"].(string)
	exec(gone, "echo lost > kept.txt")
	// The first thread, idle again since its restore, is kept and paused too.
	assert.Equal(t, run.IdleReport{Kept: 1, Paused: 2}, idle(), "until_expiry pauses, keeping nothing")
	assert.Nil(t, thread(plain)["kept"])
	p.expire(e, goneRef)
	replaced := start(plain)
	assert.Equal(t, run.ReplacedNotice, replaced["notice"])
	assert.Equal(t, "no\n", exec(replaced, "test -e kept.txt && echo yes || echo no"))

	// The reaper deletes kept files replaced by newer ones, and the newest past max_kept_days.
	rep, err := e.app.Runs.Reap(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Forgotten, "the two kept before the newest")
	if p.kept() >= 0 {
		assert.Equal(t, 1, p.kept())
	}
	assert.NotNil(t, thread(agent)["kept"])
	clock.moveOn(8 * 24 * time.Hour)
	rep, err = e.app.Runs.Reap(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Forgotten)
	assert.Nil(t, thread(agent)["kept"])
	if p.kept() >= 0 {
		assert.Zero(t, p.kept())
	}
}

// keptBytes is the size of the only kept files there are.
func keptBytes(t *testing.T, e *env) int64 {
	t.Helper()
	sqlDB, err := e.db.SQL()
	require.NoError(t, err)
	var bytes int64
	require.NoError(t, sqlDB.QueryRowContext(context.Background(), "SELECT bytes FROM kept_files").Scan(&bytes))
	return bytes
}

func TestThreadsKeepTheirWorkOnEcho(t *testing.T) {
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echotest.Kind{})
	clock := &movedClock{}
	eachDB(t, func(t *testing.T, e *env) {
		srv := echotest.NewServer(t)
		threadLifecycle(t, e, clock, lifecycleProvider{
			sandbox: func(*env) map[string]any {
				return map[string]any{"provider": "echo", "url": srv.URL, "secret": srv.Token}
			},
			paused: func(_ *env, ref string) bool { return srv.Paused(ref) },
			expire: func(_ *env, ref string) { srv.Vanish(ref) },
			calls:  srv.TotalCalls,
			kept:   srv.Snapshots,
		})
	}, func(o *options) { o.kinds = kinds; o.run.Clock = clock.now })
}

func TestThreadsKeepTheirWorkOnTheLocalProvider(t *testing.T) {
	clock := &movedClock{}
	eachDB(t, func(t *testing.T, e *env) {
		instances := filepath.Join(e.dataDir, "instances")
		threadLifecycle(t, e, clock, lifecycleProvider{
			sandbox: func(*env) map[string]any { return map[string]any{"provider": "local"} },
			paused: func(_ *env, ref string) bool {
				_, err := os.Stat(filepath.Join(instances, ref+".paused"))
				return err == nil
			},
			expire: func(_ *env, ref string) {
				matches, err := filepath.Glob(filepath.Join(instances, ref+"*"))
				require.NoError(t, err)
				for _, m := range matches {
					require.NoError(t, os.RemoveAll(m))
				}
			},
			calls: func() int { return -1 },
			kept: func() int {
				entries, _ := os.ReadDir(filepath.Join(e.dataDir, "kept"))
				return len(entries)
			},
			sized: true,
		})
	}, func(o *options) { o.run.Clock = clock.now })
}
