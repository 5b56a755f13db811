package bubblewrap

import (
	"context"
	"os"
	"testing"
	"time"
)

// BenchmarkJailStart runs an empty command in a fresh jail, without and
// with network: the time is mostly the jail's setting up.
func BenchmarkJailStart(b *testing.B) {
	for _, network := range []bool{false, true} {
		name := map[bool]string{false: "offline", true: "network"}[network]
		b.Run(name, func(b *testing.B) {
			if network && checkTun(os.Geteuid() == 0) != nil {
				b.Skip("no network for jails here")
			}
			j := Jail{Root: b.TempDir(), WorkDir: "/workspace", Network: network}
			for b.Loop() {
				if res, err := j.Run(context.Background(), "true", time.Minute, nil, nil); err != nil || res.ExitCode != 0 {
					b.Fatal(res, err)
				}
			}
		})
	}
}
