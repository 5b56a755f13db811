package run

import (
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
)

// A pool is known empty from a claim that found none until an instance is
// made here, a claim finds one, or emptyPoolsFor has passed; a new version
// of the sandbox has a pool of its own.
func TestAPoolIsKnownEmptyUntilItIsFilledOrTheMemoryExpires(t *testing.T) {
	sb := auxilia.Sandbox{ID: "sb1", Version: 3}
	other := auxilia.Sandbox{ID: "sb2", Version: 3}
	at := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)

	e := newEmptyPools()
	assert.False(t, e.known(sb, at), "nothing is known before a claim")
	e.found(sb, false, at)
	assert.True(t, e.known(sb, at.Add(emptyPoolsFor-time.Millisecond)))
	assert.False(t, e.known(sb, at.Add(emptyPoolsFor)), "another process may have filled it since")
	assert.False(t, e.known(other, at), "another sandbox's pool")
	assert.False(t, e.known(auxilia.Sandbox{ID: "sb1", Version: 4}, at), "the sandbox's new version")

	e.found(sb, false, at)
	e.filled(sb)
	assert.False(t, e.known(sb, at), "an instance made here")

	e.found(sb, false, at)
	e.found(sb, true, at)
	assert.False(t, e.known(sb, at), "a claim that found one")

	e.found(other, false, at)
	e.found(sb, false, at.Add(emptyPoolsFor))
	assert.Len(t, e.since, 1, "what has expired is forgotten")
}
