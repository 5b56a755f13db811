package secret_test

import (
	"bytes"
	"testing"

	"github.com/auxilia/sandboxes/pkg/secret"
)

// Sizes of what the server seals: a provider's API key, and an instance's
// provider state (endpoints and access headers).
var sealSizes = []struct {
	name string
	size int
}{
	{"api_key_40B", 40},
	{"instance_state_1KiB", 1 << 10},
}

func benchKeyring(b *testing.B) *secret.Keyring {
	b.Helper()
	kr, err := secret.ParseKeys(secret.NewKey())
	if err != nil {
		b.Fatal(err)
	}
	return kr
}

func BenchmarkSeal(b *testing.B) {
	kr := benchKeyring(b)
	for _, s := range sealSizes {
		plain := bytes.Repeat([]byte("k"), s.size)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(s.size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kr.Seal(plain, "sandbox:0190c3b2-7a51-7c3e-9b1f-2d6e8f0a4c11:secret"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	const aad = "sandbox:0190c3b2-7a51-7c3e-9b1f-2d6e8f0a4c11:secret"
	// The key that opens is listed after another, as during a rotation:
	// Open looks the key up by id.
	older := secret.NewKey()
	kr, err := secret.ParseKeys(secret.NewKey() + "," + older)
	if err != nil {
		b.Fatal(err)
	}
	sealer, err := secret.ParseKeys(older)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range sealSizes {
		sealed, err := sealer.Seal(bytes.Repeat([]byte("k"), s.size), aad)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(s.size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := kr.Open(sealed, aad); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
