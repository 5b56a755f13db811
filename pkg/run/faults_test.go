package run_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// Runs go on while the provider fails a share of its calls (5xx, hangs, cut
// streams, refused credentials): every run and tool call either succeeds or
// ends with a clear problem, nothing leaks in this process, and no instance
// is left at the provider that no thread uses.
func TestProviderFaultsUnderLoad(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		// A Postgres connection whose query a caller cancelled reads the
		// server's answer in the background until its next use: pgx's, the
		// pool's connection, not the run service's.
		defer goleak.VerifyNone(t, goleak.IgnoreCurrent(),
			goleak.IgnoreAnyFunction("github.com/jackc/pgx/v5/pgconn/internal/bgreader.(*BGReader).bgRead"))
		w := newWorld(t, db, func(o *run.Options) { o.CreateLease = 2 * time.Second })
		w.fake.SetLatency(2 * time.Millisecond)
		w.fake.Flaky("create", 5, provider.Errorf(provider.ErrFailed, "fake", "create", "502 Bad Gateway"))
		w.fake.Flaky("reconnect", 7, nil) // hangs until the caller gives up
		w.fake.Flaky("probe", 6, provider.Errorf(provider.ErrUnauthorized, "fake", "probe", "INVALID_API_KEY"))
		w.fake.Flaky("execute", 4, provider.Errorf(provider.ErrFailed, "fake", "execute", "the stream was cut"))
		w.fake.Flaky("destroy", 3, provider.Errorf(provider.ErrUnreachable, "fake", "destroy", "connection reset"))

		var (
			mu       sync.Mutex
			outcomes = map[string]int{}
		)
		record := func(err error) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				outcomes["ok"]++
			case errors.Is(err, context.DeadlineExceeded):
				outcomes["caller gave up"]++ // its own deadline: a hung provider, or a busy database
			case auxilia.ErrorCode(err) == auxilia.CodeInternal:
				t.Errorf("an unclear failure: %v", err)
			default:
				outcomes[string(auxilia.ErrorCode(err))]++
			}
		}
		var wg sync.WaitGroup
		for worker := 0; worker < 16; worker++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 8; i++ {
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
					r, err := w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, fmt.Sprintf("thread-%d", (worker+i)%6))
					cancel()
					record(err)
					if err != nil {
						continue
					}
					_, err = w.app.Runs.Execute(context.Background(), w.ws.ID, r.ID, run.ExecInput{Command: "echo ok"})
					record(err)
				}
			}()
		}
		wg.Wait()
		t.Logf("outcomes: %v", outcomes)
		assert.Greater(t, outcomes["ok"], 0, "work gets done despite the faults")
		assert.Greater(t, len(outcomes), 1, "and the faults were felt")

		// Once the provider behaves and the reaper has run (past the creation lease), the
		// provider holds exactly the instances threads use.
		for _, op := range []string{"create", "reconnect", "probe", "execute", "destroy"} {
			w.fake.Flaky(op, 1<<30, errors.New("never"))
		}
		time.Sleep(2100 * time.Millisecond)
		_, err := w.app.Runs.Reap(context.Background())
		require.NoError(t, err)
		page, err := w.app.Runs.ListThreads(context.Background(), w.ws.ID, w.agent.ID, auxilia.PageRequest{Size: 100})
		require.NoError(t, err)
		var used []string
		for _, th := range page.Items {
			if th.Instance != nil && th.Instance.Status == auxilia.InstanceLive {
				used = append(used, th.Instance.ProviderRef)
			}
		}
		sort.Strings(used)
		assert.Equal(t, used, w.fake.Live(), "no instance leaks at the provider")
	})
}
