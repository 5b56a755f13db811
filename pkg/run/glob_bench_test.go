package run_test

import (
	"fmt"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/run"
)

// globBenchFiles is the size of the tree the glob benchmark searches:
// 100 folders of 100 files, a tenth of them Python or TypeScript: the
// 1000 paths glob answers at most.
const globBenchFiles = 10000

// BenchmarkOpenSandboxGlob times glob on trees of 200 and 10,000 files on
// the OpenSandbox fake: walked with find through execd's command stream (an
// execd without /directories/list), and listed by execd in one call.
func BenchmarkOpenSandboxGlob(b *testing.B) {
	for _, files := range []int{200, globBenchFiles} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) { benchmarkGlob(b, files) })
	}
}

func benchmarkGlob(b *testing.B, files int) {
	names := make([]string, 0, files)
	exts := []string{"py", "ts", "go", "md", "txt", "json", "yaml", "css", "html", "sh",
		"c", "h", "rs", "java", "rb", "toml", "lock", "svg", "png", "csv"}
	for i := range files {
		names = append(names, fmt.Sprintf("d%02d/f%04d.%s", i/100, i, exts[i%len(exts)]))
	}
	for _, c := range []struct {
		name string
		opts opensandboxtest.Options
	}{
		{"walk", opensandboxtest.Options{NoDirectoryListing: true, CompletionHold: -1}},
		{"native", opensandboxtest.Options{CompletionHold: -1}},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := newOSWorld(b, c.opts)
			w.lay(b, names...)
			b.ResetTimer()
			for b.Loop() {
				found, cut := w.glob(b, run.GlobInput{Pattern: "**/*.{py,ts}"})
				if len(found) != 2*files/len(exts) || cut {
					b.Fatalf("found %d, truncated %v", len(found), cut)
				}
			}
		})
	}
}
