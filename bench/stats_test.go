package main

import (
	"errors"
	"testing"
	"time"
)

func TestQuantileIsNearestRank(t *testing.T) {
	var s series
	for i := 1; i <= 100; i++ {
		s.record(time.Duration(i)*time.Millisecond, nil)
	}
	s.record(0, errors.New("refused"))
	s.seal()
	for q, want := range map[float64]time.Duration{0: time.Millisecond, 0.5: 50 * time.Millisecond,
		0.99: 99 * time.Millisecond, 1: 100 * time.Millisecond} {
		if got := s.quantile(q); got != want {
			t.Errorf("quantile(%v) = %v, want %v", q, got, want)
		}
	}
	if s.requests() != 100 || s.errors != 1 {
		t.Errorf("requests %d, errors %d; want 100 and 1", s.requests(), s.errors)
	}
}

func TestParseGoBench(t *testing.T) {
	out := []byte("goos: linux\npkg: example.com/m/pkg/secret\n" +
		"BenchmarkSeal/api_key_40B-2         	  172039	       639.3 ns/op	  62.57 MB/s	     352 B/op	       5 allocs/op\n" +
		"BenchmarkHash-2   	  360396	       301.7 ns/op	     176 B/op	       3 allocs/op\nPASS\n")
	got := parseGoBench(out)
	want := []goBenchmark{
		{Package: "example.com/m/pkg/secret", Name: "BenchmarkSeal/api_key_40B", NsPerOp: 639.3, MBPerSec: 62.57, BytesPerOp: 352, AllocsPerOp: 5},
		{Package: "example.com/m/pkg/secret", Name: "BenchmarkHash", NsPerOp: 301.7, BytesPerOp: 176, AllocsPerOp: 3},
	}
	if len(got) != len(want) {
		t.Fatalf("parsed %d benchmarks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("benchmark %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestMediansKeepTheMiddleRun(t *testing.T) {
	runs := []goBenchmark{{Name: "A", NsPerOp: 30}, {Name: "B", NsPerOp: 5}, {Name: "A", NsPerOp: 10}, {Name: "A", NsPerOp: 20}}
	got := medians(runs)
	if len(got) != 2 || got[0].Name != "A" || got[0].NsPerOp != 20 || got[1].Name != "B" {
		t.Errorf("medians = %+v, want A at 20 then B", got)
	}
}

func TestErrorOfGroupsLikeFailures(t *testing.T) {
	line := `{"time":"t","level":"ERROR","msg":"request failed","request_id":"r","error":"failed to connect to ` +
		"`database=auxilia_bench_9fa88ee5`" + `: read tcp 127.0.0.1:53156->127.0.0.1:5432: reset"}`
	got, ok := errorOf(line)
	want := "request failed: failed to connect to `database=auxilia_bench_…`: read tcp 127.0.0.1:…->127.0.0.1:5432: reset"
	if !ok || got != want {
		t.Errorf("errorOf = %q, %v; want %q", got, ok, want)
	}
	if _, ok := errorOf(`{"level":"INFO","msg":"request","status":200}`); ok {
		t.Error("an info line is not an error")
	}
}
