package daytona

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// BenchmarkFileSearch times, on the fake, the two ways a Daytona sandbox
// can answer glob and grep on a folder of folders of 100 files (200 or
// 10,000; one file in 100 holds the word looked for): the walk the tools
// run on every provider (find, and grep -rF, through a command, their
// output read), and the daemon's own routes (GET /files/search and GET
// /files/find, their answers decoded). The tools' own matching, the same
// either way, is left out. Kept out of the bench tool's hot paths (no
// _bench_test.go): docs/benchmarks.md has its own section for it.
func BenchmarkFileSearch(b *testing.B) {
	for _, files := range []int{200, 10000} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) { benchmarkFileSearch(b, files) })
	}
}

func benchmarkFileSearch(b *testing.B, files int) {
	ctx := context.Background()
	fake := daytonatest.Start(b, daytonatest.Options{})
	pc, err := Kind{}.Open(provider.Settings{URL: fake.URL(), Secret: daytonatest.DefaultKey, Config: DefaultConfig()})
	if err != nil {
		b.Fatal(err)
	}
	c := pc.(*Client)
	b.Cleanup(c.CloseIdleConnections)
	inst, err := c.Create(ctx, provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	if err != nil {
		b.Fatal(err)
	}
	for i := range files {
		p := filepath.Join(fake.HomeDir(inst.ID), "tree", fmt.Sprintf("d%02d", i/100), fmt.Sprintf("f%04d.txt", i))
		content := "hello\nworld\n"
		if i%100 == 0 {
			content += "needle\n"
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	tree := daytonatest.WorkDir + "/tree"
	paths, needles := files+files/100, files/100
	command := func(cmd string, want int) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: cmd, Timeout: time.Minute, OutputLimit: 4 << 20})
				if got := strings.Count(res.Output, "\n"); err != nil || got != want {
					b.Fatalf("%d lines, %v", got, err)
				}
			}
		}
	}
	route := func(sub, pattern string, decode func([]byte) (int, error), want int) func(b *testing.B) {
		return func(b *testing.B) {
			for b.Loop() {
				ans, err := c.toolbox(ctx, inst, toolboxCall{op: "search", method: http.MethodGet, path: sub,
					query: url.Values{"path": {tree}, "pattern": {pattern}}})
				if err != nil || ans.Status != http.StatusOK {
					b.Fatalf("%v %d", err, ans.Status)
				}
				if got, err := decode(ans.Body); err != nil || got != want {
					b.Fatalf("%d answers, %v", got, err)
				}
			}
		}
	}
	b.Run("glob/walk", command("find "+tree+" -mindepth 1 -name .venv -type d -prune -o -print 2>/dev/null | head -n 50001", paths))
	b.Run("glob/files-search", route("/files/search", "*", func(raw []byte) (int, error) {
		var ans struct{ Files []string }
		err := json.Unmarshal(raw, &ans)
		return len(ans.Files) - 1, err // the folder searched names itself
	}, paths))
	b.Run("grep/walk", command("grep -rnHIFZ --color=never --exclude-dir=.venv -e needle -- "+tree+" 2>/dev/null | head -n 1001 | cut -b -5000", needles))
	b.Run("grep/files-find", route("/files/find", "needle", func(raw []byte) (int, error) {
		var ans []struct {
			File    string
			Line    int
			Content string
		}
		err := json.Unmarshal(raw, &ans)
		return len(ans), err
	}, needles))
}
