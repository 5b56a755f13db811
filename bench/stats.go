package main

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// series is what one measurement gave: the latency of every request that
// succeeded inside its window, and what went wrong with the others.
type series struct {
	latencies []time.Duration // ascending once sealed
	window    time.Duration   // the measured span (throughput's denominator)
	errors    int
	errKinds  map[string]int // error text → count
}

func (s *series) record(took time.Duration, err error) {
	if err == nil {
		s.latencies = append(s.latencies, took)
		return
	}
	s.errors++
	if s.errKinds == nil {
		s.errKinds = map[string]int{}
	}
	msg := err.Error()
	if len(msg) > 160 {
		msg = msg[:160] + "…"
	}
	s.errKinds[msg]++
}

// merge adds o's requests and window to s (rounds of the same measurement).
func (s *series) merge(o series) {
	s.latencies = append(s.latencies, o.latencies...)
	s.window += o.window
	s.errors += o.errors
	for k, n := range o.errKinds {
		if s.errKinds == nil {
			s.errKinds = map[string]int{}
		}
		s.errKinds[k] += n
	}
}

func (s *series) seal() { slices.Sort(s.latencies) }

func (s series) requests() int { return len(s.latencies) }

// throughput is successful requests per second of the window.
func (s series) throughput() float64 {
	if s.window <= 0 {
		return 0
	}
	return float64(len(s.latencies)) / s.window.Seconds()
}

// quantile is the nearest-rank quantile q (0–1) of the sealed latencies.
func (s series) quantile(q float64) time.Duration {
	return quantile(s.latencies, q)
}

func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

func (s series) mean() time.Duration {
	if len(s.latencies) == 0 {
		return 0
	}
	var total time.Duration
	for _, l := range s.latencies {
		total += l
	}
	return total / time.Duration(len(s.latencies))
}

// errorSummary lists the kinds of error, the most frequent first.
func (s series) errorSummary(limit int) string {
	type kind struct {
		msg string
		n   int
	}
	var kinds []kind
	for m, n := range s.errKinds {
		kinds = append(kinds, kind{m, n})
	}
	sort.Slice(kinds, func(i, j int) bool {
		return kinds[i].n > kinds[j].n || kinds[i].n == kinds[j].n && kinds[i].msg < kinds[j].msg
	})
	var parts []string
	for i, k := range kinds {
		if i == limit {
			parts = append(parts, fmt.Sprintf("and %d other kinds", len(kinds)-limit))
			break
		}
		parts = append(parts, fmt.Sprintf("%d× %s", k.n, k.msg))
	}
	return strings.Join(parts, "; ")
}

// msList is ds as ms writes them, in order.
func msList(ds []time.Duration) string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = ms(d)
	}
	return strings.Join(out, ", ")
}

// countList renders counts, in order.
func countList(ns []int64) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(out, ", ")
}

// ms renders a duration in milliseconds with sensible precision.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2f s", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	default:
		return fmt.Sprintf("%.2f ms", v)
	}
}

// ratio renders a/b as "1.73×".
func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// micros renders a short duration in microseconds.
func micros(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}
