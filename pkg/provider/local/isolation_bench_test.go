package local

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/require"
)

// BenchmarkIsolation measures what an instance costs on each isolation, in
// one run, for docs/benchmarks.md's table of the two:
//
//	go test ./pkg/provider/local -run '^$' -bench Isolation -benchtime 5x
//
// The package install is of the setuptools wheel the host ships (Debian's
// python3-venv), from its file, so that no index's speed is measured.
func BenchmarkIsolation(b *testing.B) {
	ctx := context.Background()
	for _, isolation := range isolations {
		b.Run(isolation, func(b *testing.B) {
			c := newIsolatedClient(b, isolation)
			labels := provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"}
			exec := func(b *testing.B, inst provider.Instance, command string) {
				res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: command, Timeout: 5 * time.Minute})
				require.NoError(b, err)
				require.Equal(b, 0, res.ExitCode, res.Output)
			}
			b.Run("start", func(b *testing.B) {
				for b.Loop() {
					inst, err := c.Create(ctx, labels)
					require.NoError(b, err)
					exec(b, inst, "true")
					b.StopTimer()
					require.NoError(b, c.Destroy(ctx, inst))
					b.StartTimer()
				}
			})
			inst, err := c.Create(ctx, labels)
			require.NoError(b, err)
			b.Cleanup(func() { _ = c.Destroy(ctx, inst) })
			exec(b, inst, "true")
			b.Run("echo_hi", func(b *testing.B) {
				for b.Loop() {
					exec(b, inst, "echo hi")
				}
			})
			b.Run("write_100MB", func(b *testing.B) {
				for b.Loop() {
					exec(b, inst, "head -c 100M /dev/zero > f && sync f && rm f")
				}
			})
			b.Run("pip_install", func(b *testing.B) {
				for b.Loop() {
					exec(b, inst, "pip install -q --no-index --no-deps --force-reinstall /usr/share/python-wheels/setuptools-*.whl")
				}
			})
			b.Run("terminal_first_byte", func(b *testing.B) {
				for b.Loop() {
					pty, err := c.OpenTerminal(ctx, inst, provider.DefaultTermSize)
					require.NoError(b, err)
					_, err = pty.Read(make([]byte, 1))
					require.NoError(b, err)
					b.StopTimer()
					require.NoError(b, pty.Close())
					b.StartTimer()
				}
			})
		})
	}
}

// BenchmarkNetworkedIsolation measures what network adds to an instance on
// each isolation (slirp4netns and the rules for a jail, a router besides
// for gVisor), for docs/benchmarks.md:
//
//	go test ./pkg/provider/local -run '^$' -bench NetworkedIsolation -benchtime 3x
func BenchmarkNetworkedIsolation(b *testing.B) {
	ctx := context.Background()
	for _, isolation := range isolations {
		for _, network := range []string{"deny", "allow"} {
			b.Run(isolation+"/"+network, func(b *testing.B) {
				c := newIsolatedClient(b, isolation, func(cfg *Config) {
					if network == "allow" {
						cfg.Network = provider.AllowNetwork()
					}
				})
				labels := provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"}
				exec := func(b *testing.B, inst provider.Instance, command string) {
					res, err := c.Execute(ctx, inst, provider.ExecRequest{Command: command, Timeout: 5 * time.Minute})
					require.NoError(b, err)
					require.Equal(b, 0, res.ExitCode, res.Output)
				}
				b.Run("start", func(b *testing.B) {
					for b.Loop() {
						inst, err := c.Create(ctx, labels)
						require.NoError(b, err)
						exec(b, inst, "true")
						b.StopTimer()
						require.NoError(b, c.Destroy(ctx, inst))
						b.StartTimer()
					}
				})
				inst, err := c.Create(ctx, labels)
				require.NoError(b, err)
				b.Cleanup(func() { _ = c.Destroy(ctx, inst) })
				exec(b, inst, "true")
				b.Run("echo_hi", func(b *testing.B) {
					for b.Loop() {
						exec(b, inst, "echo hi")
					}
				})
			})
		}
	}
}
