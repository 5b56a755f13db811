package opensandbox

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
)

// BenchmarkTreeListing times the two ways an OpenSandbox sandbox can list
// every path under a folder of 200 or 10,000 files, on the fake: the walk
// glob runs (find through execd's /command, its output read), and execd's
// /directories/list with a depth in one call, its answer decoded. glob's
// matching of the paths, the same for both, is left out. It is kept out of
// the bench tool's hot paths (no _bench_test.go): docs/benchmarks.md has
// its own section for the comparison.
func BenchmarkTreeListing(b *testing.B) {
	for _, files := range []int{200, 10000} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) { benchmarkTreeListing(b, files) })
	}
}

func benchmarkTreeListing(b *testing.B, files int) {
	ctx := context.Background()
	fake := opensandboxtest.New(b, opensandboxtest.Options{CompletionHold: -1})
	pc, err := Kind{}.Open(provider.Settings{URL: fake.URL, Config: DefaultConfig()})
	if err != nil {
		b.Fatal(err)
	}
	c := pc.(*client)
	inst, err := c.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Destroy(ctx, inst) })
	sb, _ := fake.Sandbox(inst.ID)
	for i := range files {
		p := filepath.Join(sb.Root, "workspace", "tree", fmt.Sprintf("d%02d", i/100), fmt.Sprintf("f%04d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	want := files + files/100
	b.Run("walk", func(b *testing.B) {
		cmd := "find /workspace/tree -mindepth 1 -name .venv -type d -prune -o -print 2>/dev/null | head -n 50001"
		for b.Loop() {
			res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: cmd, Timeout: time.Minute, OutputLimit: 4 << 20})
			if got := strings.Count(res.Output, "\n"); err != nil || got != want {
				b.Fatalf("%d paths, %v", got, err)
			}
		}
	})
	b.Run("listing", func(b *testing.B) {
		t, err := target(inst, "list tree")
		if err != nil {
			b.Fatal(err)
		}
		query := url.Values{"path": {"/workspace/tree"}, "depth": {"2048"}}
		for b.Loop() {
			var entries []fileInfo
			if err := c.do(ctx, c.execd(t, "list tree", "GET", "/directories/list", query), &entries); err != nil || len(entries) != want {
				b.Fatalf("%d paths, %v", len(entries), err)
			}
		}
	})
}
