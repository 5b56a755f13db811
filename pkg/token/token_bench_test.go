package token_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/token"
)

// BenchmarkHash is the CPU part of checking a token on every request; the
// lookup by hash that follows is a database round trip, measured end to end
// by the bench tool (bench/).
func BenchmarkHash(b *testing.B) {
	const value = token.Prefix + "q8Zt1mW3v0cX5bN7kP2rS9dF4gH6jL0aE1yU3iO5pQ7"
	b.ReportAllocs()
	for b.Loop() {
		_ = token.Hash(value)
	}
}
