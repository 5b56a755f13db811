package main

import (
	"context"
	"slices"
	"sync"
	"time"
)

// closedLoop is a closed-loop load: a fixed number of workers, each sending
// its next request as soon as the last one is answered. Requests that start
// during the warm-up, or end after the window, are not recorded, so the
// figures are of the steady state only.
type closedLoop struct {
	concurrency int
	warmup      time.Duration
	window      time.Duration
}

// request is one request of a worker: i counts the worker's requests.
type request func(ctx context.Context, worker, i int) error

func (l closedLoop) run(ctx context.Context, do request) series {
	return l.runMixed(ctx, 1, func(ctx context.Context, worker, i, _ int) error { return do(ctx, worker, i) })[0]
}

// runMixed is run with kinds of request in turn: worker w's i-th request
// is of kind (w+i) % kinds, so that the drift of a busy machine falls on
// every kind alike. It returns each kind's series.
func (l closedLoop) runMixed(ctx context.Context, kinds int, do func(ctx context.Context, worker, i, kind int) error) []series {
	begin := time.Now()
	from, until := begin.Add(l.warmup), begin.Add(l.warmup+l.window)
	perWorker := make([][]series, l.concurrency)
	var wg sync.WaitGroup
	for w := range l.concurrency {
		perWorker[w] = make([]series, kinds)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				start := time.Now()
				if !start.Before(until) {
					return
				}
				kind := (w + i) % kinds
				err := do(ctx, w, i, kind)
				end := time.Now()
				if !start.Before(from) && !end.After(until) {
					perWorker[w][kind].record(end.Sub(start), err)
				}
			}
		}()
	}
	wg.Wait()
	out := make([]series, kinds)
	for k := range out {
		out[k].window = l.window
		for _, ws := range perWorker {
			ws[k].window = 0
			out[k].merge(ws[k])
		}
		out[k].seal()
	}
	return out
}

// batch is a fixed number of requests, concurrency at a time.
type batch struct {
	series
	ends      []time.Duration // when each successful request ended, from the start; ascending
	total     time.Duration   // from the start to the last answer
	byRequest []time.Duration // each request's latency, by its index; -1 for one that failed
}

// runBatch sends n requests with at most concurrency in flight. With
// concurrency == n every request waits at a gate that opens once all of
// them are ready, so that they really start at once.
func runBatch(ctx context.Context, n, concurrency int, do func(ctx context.Context, i int) error) batch {
	type result struct {
		took, end time.Duration
		err       error
	}
	results := make([]result, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	gate := make(chan struct{})
	var ready, done sync.WaitGroup
	var start time.Time
	for range concurrency {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-gate
			for i := range next {
				t0 := time.Now()
				err := do(ctx, i)
				t1 := time.Now()
				results[i] = result{took: t1.Sub(t0), end: t1.Sub(start), err: err}
			}
		}()
	}
	ready.Wait()
	start = time.Now()
	close(gate)
	done.Wait()
	b := batch{byRequest: make([]time.Duration, n)}
	for i, r := range results {
		b.record(r.took, r.err)
		b.byRequest[i] = -1
		if r.err == nil {
			b.ends = append(b.ends, r.end)
			b.byRequest[i] = r.took
		}
		b.total = max(b.total, r.end)
	}
	b.window = b.total
	b.seal()
	slices.Sort(b.ends)
	return b
}
