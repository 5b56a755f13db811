package provider

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// FuzzScrub: whatever the secret, the form it is echoed in, and where the
// echo stands around the cut, no 4 characters of it survive.
func FuzzScrub(f *testing.F) {
	f.Add([]byte("osk-0123456789abcdef"), uint8(0), uint16(490), uint16(20), uint64(1))
	f.Add([]byte("dtn_0123456789abcdefWXYZ"), uint8(3), uint16(480), uint16(0), uint64(2))
	f.Add([]byte("gw-0123"), uint8(11), uint16(499), uint16(600), uint64(3))
	forms := slices.Sorted(maps.Keys(echoes))
	f.Fuzz(func(t *testing.T, raw []byte, form uint8, before, after uint16, seed uint64) {
		if len(raw) < 4 || len(raw) > 256 {
			return
		}
		secret := make([]byte, len(raw))
		for i, b := range raw {
			secret[i] = secretAlphabet[int(b)%len(secretAlphabet)]
		}
		rng := rand.New(rand.NewPCG(seed, uint64(len(raw))))
		name := forms[int(form)%len(forms)]
		checkScrub(t, string(secret), name, echoes[name](string(secret), rng), int(before)%(2*MaxMessage), int(after)%1000, rng)
	})
}
