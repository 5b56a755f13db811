package run_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/require"
)

// meteringBench is a thread's run start on the echo fake, with the
// statements it sends to the database counted.
type meteringBench struct {
	db         *store.DB
	ws         string
	statements *atomic.Int64
	runs       *run.Service
	start      func(tb testing.TB, thread string)
	idle       func(tb testing.TB)
	// execute and read are a command and a file read in a run of thread.
	execute, read func(tb testing.TB, thread string)
}

func newMeteringBench(tb testing.TB, dialect store.Dialect) meteringBench {
	ctx := context.Background()
	db := storetest.Open(tb, dialect)
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(tb, err)
	srv := echotest.NewServer(tb)
	var ahead atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	a := app.New(db, keys, app.Options{DataDir: tb.TempDir(), Kinds: []provider.Kind{echotest.Kind{}}, Run: run.Options{Clock: clock}})
	ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
	require.NoError(tb, err)
	config, _ := json.Marshal(map[string]any{"idle_minutes": 1})
	sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Echo", Provider: "echo", URL: srv.URL, Secret: &srv.Token, Config: config})
	require.NoError(tb, err)
	agent, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
	require.NoError(tb, err)
	_, err = a.Agents.Bind(ctx, ws.ID, agent.ID, sb.ID, nil, nil, nil)
	require.NoError(tb, err)
	return meteringBench{db: db, ws: ws.ID, statements: db.CountStatements(), runs: a.Runs,
		start: func(tb testing.TB, thread string) {
			_, err := a.Runs.Start(ctx, ws.ID, agent.ID, thread)
			require.NoError(tb, err)
		},
		idle: func(tb testing.TB) {
			ahead.Add(int64(2 * time.Minute))
			_, err := a.Runs.Idle(ctx)
			require.NoError(tb, err)
		},
		execute: func(tb testing.TB, thread string) {
			r, err := a.Runs.Start(ctx, ws.ID, agent.ID, thread)
			require.NoError(tb, err)
			_, err = a.Runs.Execute(ctx, ws.ID, r.ID, run.ExecInput{Command: "echo hi > note.txt"})
			require.NoError(tb, err)
		},
		read: func(tb testing.TB, thread string) {
			r, err := a.Runs.Start(ctx, ws.ID, agent.ID, thread)
			require.NoError(tb, err)
			_, err = a.Runs.Read(ctx, ws.ID, r.ID, run.ReadInput{Path: "note.txt", Limit: 10}, false)
			require.NoError(tb, err)
		}}
}

// unmeter drops the metering triggers of migrations 0013 and 0017.
func (m meteringBench) unmeter(tb testing.TB) {
	sqlDB, err := m.db.SQL()
	require.NoError(tb, err)
	drops := []string{"DROP TRIGGER usage_instance_made", "DROP TRIGGER usage_instance_changed", "DROP TRIGGER usage_instance_event",
		"DROP TRIGGER usage_kept_meter"}
	if m.db.Dialect() == store.Postgres {
		drops = []string{"DROP TRIGGER usage_meter ON instances", "DROP TRIGGER usage_kept_meter ON kept_files"}
	}
	for _, d := range drops {
		_, err := sqlDB.Exec(d)
		require.NoError(tb, err)
	}
}

// statementsOf counts what one warm start and one start that resumes a
// paused instance send to the database.
func (m meteringBench) statementsOf(tb testing.TB) (warm, resume int64) {
	m.start(tb, "warm")
	before := m.statements.Load()
	m.start(tb, "warm")
	warm = m.statements.Load() - before
	m.start(tb, "paused")
	m.idle(tb)
	before = m.statements.Load()
	m.start(tb, "paused")
	resume = m.statements.Load() - before
	return warm, resume
}

// Metering runs in the database, in the statement of each transition it
// meters: a run start sends exactly as many statements with it as without.
func TestMeteringAddsNoStatementToARunStart(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		metered := newMeteringBench(t, db.Dialect())
		warm, resume := metered.statementsOf(t)
		bare := newMeteringBench(t, db.Dialect())
		bare.unmeter(t)
		bareWarm, bareResume := bare.statementsOf(t)
		require.Equal(t, bareWarm, warm, "a warm start")
		require.Equal(t, bareResume, resume, "a start that resumes a paused instance")
		require.Positive(t, warm)
		intervals, err := metered.db.In(metered.ws).Usage().Intervals(context.Background(), time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		require.NoError(t, err)
		paused := 0
		for _, iv := range intervals {
			if iv.State == auxilia.UsagePaused {
				paused++
			}
		}
		require.Equal(t, 2, paused, "the idle job paused both threads' instances, one of which the last start resumed")
	})
}

// A command is metered in one statement, once it answered, and the answer
// does not wait for it: it sends one statement more than a file read,
// which goes through the same checks, once its meter is written.
func TestACommandIsMeteredInOneStatement(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		m := newMeteringBench(t, db.Dialect())
		m.execute(t, "tools") // the run's activity is recorded at most every 10 s: done here
		m.read(t, "tools")
		count := func(call func(testing.TB, string)) int64 {
			require.NoError(t, m.runs.FlushMeters(context.Background()))
			before := m.statements.Load()
			call(t, "tools")
			require.NoError(t, m.runs.FlushMeters(context.Background()))
			return m.statements.Load() - before
		}
		read, execute := count(m.read), count(m.execute)
		require.Equal(t, read+1, execute)
		spans, err := m.db.In(m.ws).Usage().Spans(context.Background(), time.Now().Add(-time.Hour), time.Now().Add(time.Hour), time.Now())
		require.NoError(t, err)
		require.Len(t, spans, 2)
		require.Equal(t, auxilia.UsageCommand, spans[1].State)
	})
}

// BenchmarkMeteredRunStart times a warm run start and one that resumes a
// paused instance, metered and with the metering triggers dropped, and
// reports the statements (round trips) each sends to the database.
func BenchmarkMeteredRunStart(b *testing.B) {
	for _, dialect := range []store.Dialect{store.SQLite, store.Postgres} {
		for _, metered := range []bool{true, false} {
			name := string(dialect) + "/metered"
			if !metered {
				name = string(dialect) + "/unmetered"
			}
			b.Run(name+"/warm", func(b *testing.B) {
				m := newMeteringBench(b, dialect)
				if !metered {
					m.unmeter(b)
				}
				m.start(b, "warm")
				before := m.statements.Load()
				for b.Loop() {
					m.start(b, "warm")
				}
				b.ReportMetric(float64(m.statements.Load()-before)/float64(b.N), "statements/op")
			})
			b.Run(name+"/resume_paused", func(b *testing.B) {
				m := newMeteringBench(b, dialect)
				if !metered {
					m.unmeter(b)
				}
				m.start(b, "paused")
				var sent int64
				for b.Loop() {
					b.StopTimer()
					m.idle(b)
					before := m.statements.Load()
					b.StartTimer()
					m.start(b, "paused")
					sent += m.statements.Load() - before
				}
				b.ReportMetric(float64(sent)/float64(b.N), "statements/op")
			})
		}
	}
}
