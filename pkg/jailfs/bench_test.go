package jailfs

import (
	"os"
	"testing"
)

// BenchmarkOpen measures a file tool's read through the door against the
// same read through an os.Root as the server.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(dir+"/f", []byte("content"), 0o644); err != nil {
		b.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(dir, jailUser.UID, jailUser.GID); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("door", func(b *testing.B) {
		for b.Loop() {
			err := jailUser.Open(dir, func(root *os.Root) error {
				_, err := root.ReadFile("f")
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("server", func(b *testing.B) {
		for b.Loop() {
			root, err := os.OpenRoot(dir)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := root.ReadFile("f"); err != nil {
				b.Fatal(err)
			}
			root.Close()
		}
	})
}
