package main

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// goBenchmark is one line of `go test -bench` output.
type goBenchmark struct {
	Package     string
	Name        string
	NsPerOp     float64
	MBPerSec    float64 // 0 when the benchmark sets no byte count
	BytesPerOp  int64
	AllocsPerOp int64
}

// goBenchPackage is the outcome of one package's benchmarks.
type goBenchPackage struct {
	Path       string
	Benchmarks []goBenchmark
	Failure    string // why it did not run (a package that does not build), or ""
}

// benchPackages finds the packages that hold hot-path benchmarks: those with
// a *_bench_test.go file. The bench tool's own folder is left out.
func benchPackages(root string) ([]string, error) {
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch {
			case path == filepath.Join(root, "bench"):
				return filepath.SkipDir
			case path != root && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")):
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), "_bench_test.go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			seen["./"+filepath.ToSlash(rel)] = true
		}
		return nil
	})
	var pkgs []string
	for p := range seen {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	return pkgs, err
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) MB/s)?(?:\s+(\d+) B/op)?(?:\s+(\d+) allocs/op)?`)

// runGoBenchmarks runs each package's benchmarks (and no tests) on its own,
// so that one package that does not build leaves the others' figures. Each
// benchmark runs count times and the median run (by time per op) is kept:
// a busy machine shows in single runs.
func runGoBenchmarks(ctx context.Context, root string, pkgs []string, benchtime string, count int) []goBenchPackage {
	var out []goBenchPackage
	for _, pkg := range pkgs {
		cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", ".", "-benchmem",
			"-benchtime", benchtime, "-count", strconv.Itoa(count), pkg)
		cmd.Dir = root
		raw, err := cmd.CombinedOutput()
		res := goBenchPackage{Path: strings.TrimPrefix(pkg, "./"), Benchmarks: medians(parseGoBench(raw))}
		if err != nil {
			res.Failure = firstLines(string(raw), 6)
		}
		out = append(out, res)
	}
	return out
}

func parseGoBench(raw []byte) []goBenchmark {
	var out []goBenchmark
	pkg := ""
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = p
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		b := goBenchmark{Package: pkg, Name: m[1]}
		b.NsPerOp, _ = strconv.ParseFloat(m[2], 64)
		b.MBPerSec, _ = strconv.ParseFloat(m[3], 64)
		b.BytesPerOp, _ = strconv.ParseInt(m[4], 10, 64)
		b.AllocsPerOp, _ = strconv.ParseInt(m[5], 10, 64)
		out = append(out, b)
	}
	return out
}

// medians keeps, of each benchmark's runs, the one with the median time per
// op, in the order the benchmarks first appear.
func medians(runs []goBenchmark) []goBenchmark {
	var order []string
	byName := map[string][]goBenchmark{}
	for _, b := range runs {
		if _, seen := byName[b.Name]; !seen {
			order = append(order, b.Name)
		}
		byName[b.Name] = append(byName[b.Name], b)
	}
	out := make([]goBenchmark, 0, len(order))
	for _, name := range order {
		rs := byName[name]
		sort.Slice(rs, func(i, j int) bool { return rs[i].NsPerOp < rs[j].NsPerOp })
		out = append(out, rs[len(rs)/2])
	}
	return out
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}
