package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

func TestReadDBWaitsReadsTheServersPoolSeries(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("# HELP go_sql_wait_count_total The total number of connections waited for.\n" +
			"# TYPE go_sql_wait_count_total counter\n" +
			`go_sql_wait_count_total{db_name="auxilia"} 164` + "\n" +
			`go_sql_wait_duration_seconds_total{db_name="auxilia"} 5.5` + "\n" +
			`go_sql_max_open_connections{db_name="auxilia"} 20` + "\n" +
			"auxilia_db_line_waits_total 36\n" +
			"auxilia_db_line_wait_seconds_total 0.5\n" +
			"auxilia_db_line_places_taken_total 400\n" +
			"auxilia_db_line_held_seconds_total 2\n" +
			`go_sql_wait_count_total{db_name="other"} 9` + "\n"))
	}))
	defer srv.Close()
	got, err := readDBWaits(context.Background(), api{base: srv.URL, http: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	want := dbWaits{Count: 200, Duration: 6 * time.Second, MaxOpen: 20, // the line's and the pool's
		Taken: 400, Held: 2 * time.Second}

	if got != want {
		t.Errorf("readDBWaits = %+v, want %+v", got, want)
	}
	d := got.since(dbWaits{Count: 100, Duration: time.Second, Taken: 300, Held: time.Second})
	if d.Count != 100 || d.Duration != 5*time.Second || d.Taken != 100 || d.Held != time.Second {
		t.Errorf("since = %+v, want 100 waits over 5 s, and 100 places held 1 s in all", d)
	}
	if h := d.meanHold(); h != 10*time.Millisecond {
		t.Errorf("meanHold = %v, want 10ms", h)
	}
	if both := d.plus(d); both.Taken != 200 || both.Held != 2*time.Second || both.meanHold() != 10*time.Millisecond {
		t.Errorf("plus = %+v, want 200 places held 2 s in all", both)
	}
}

func TestPostgresSpentCountsNewBackendsWholeAndNeverGoesBelowZero(t *testing.T) {
	before := map[int]time.Duration{1: 10 * time.Millisecond, 2: 500 * time.Millisecond}
	after := map[int]time.Duration{1: 30 * time.Millisecond, 3: 5 * time.Millisecond} // 2 ended, 3 began
	if got := postgresSpent(before, after); got != 25*time.Millisecond {
		t.Errorf("postgresSpent = %v, want 25ms", got)
	}
}

func TestSplitBurstPartsByWhetherThePoolServed(t *testing.T) {
	b := runBatch(context.Background(), 4, 4, func(_ context.Context, i int) error {
		if i == 3 {
			return errors.New("refused")
		}
		return nil
	})
	served, created := splitBurst(b, []bool{true, false, true, false})
	if served.requests() != 2 || created.requests() != 1 {
		t.Errorf("served %d, created %d; want 2 and 1 (the failed run in neither)", served.requests(), created.requests())
	}
}

func TestRunMixedGivesEachWorkerTheKindsInTurn(t *testing.T) {
	var mu sync.Mutex
	seen := map[[2]int]int{} // worker, request → kind
	l := closedLoop{concurrency: 2, window: 20 * time.Millisecond}
	got := l.runMixed(context.Background(), 3, func(_ context.Context, worker, i, kind int) error {
		mu.Lock()
		seen[[2]int{worker, i}] = kind
		mu.Unlock()
		time.Sleep(time.Millisecond)
		return nil
	})
	if len(got) != 3 {
		t.Fatalf("%d series, want one a kind", len(got))
	}
	for key, kind := range seen {
		if want := (key[0] + key[1]) % 3; kind != want {
			t.Errorf("worker %d's request %d was of kind %d, want %d", key[0], key[1], kind, want)
		}
	}
}
