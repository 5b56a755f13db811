package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestPauseStaysWithinTheJitter(t *testing.T) {
	const every, jitter = time.Minute, 6 * time.Second
	shortest, longest := every, every
	for range 10000 {
		p := pause(every, jitter)
		shortest, longest = min(shortest, p), max(longest, p)
	}
	assert.GreaterOrEqual(t, shortest, every-jitter)
	assert.LessOrEqual(t, longest, every+jitter)
	assert.Less(t, shortest, every-jitter/2, "earlier by up to the jitter")
	assert.Greater(t, longest, every+jitter/2, "and later by up to the jitter")

	assert.Equal(t, every, pause(every, 0), "no jitter, no change")
	p := pause(time.Second, time.Hour)
	assert.True(t, p >= 0 && p <= 2*time.Second, "a jitter past the interval is the interval: %s", p)
}
