package provider

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPausesGrowToTheirCapWithLittleJitter(t *testing.T) {
	p := Backoff{First: 100 * time.Millisecond, Max: 350 * time.Millisecond}.Pauses()
	for _, want := range []time.Duration{100, 200, 350, 350} {
		got := p.Next()
		want *= time.Millisecond
		assert.LessOrEqual(t, got, want)
		assert.GreaterOrEqual(t, got, want-want/10)
	}
}

func TestPollLooksUntilDone(t *testing.T) {
	looks := 0
	err := Poll{Backoff: Backoff{First: time.Millisecond, Max: 2 * time.Millisecond}}.Until(context.Background(),
		func(context.Context) (string, bool, error) {
			looks++
			return fmt.Sprintf("look %d", looks), looks == 4, nil
		})
	require.NoError(t, err)
	assert.Equal(t, 4, looks)
}

func TestPollEndsWithTheLooksError(t *testing.T) {
	boom := errors.New("boom")
	err := Poll{Backoff: Backoff{First: time.Millisecond}}.Until(context.Background(),
		func(context.Context) (string, bool, error) { return "", false, boom })
	assert.Same(t, boom, err)
}

func TestPollSaysWhereItWasLeftWhenTimeRunsOut(t *testing.T) {
	poll := Poll{Backoff: Backoff{First: 5 * time.Millisecond, Max: 10 * time.Millisecond}, Within: 30 * time.Millisecond}
	err := poll.Until(context.Background(), func(context.Context) (string, bool, error) { return "starting", false, nil })
	var still *StillError
	require.ErrorAs(t, err, &still)
	assert.Equal(t, "still starting after 30ms", err.Error())
	assert.NoError(t, still.Err)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err = Poll{Backoff: Backoff{First: 5 * time.Millisecond}}.Until(ctx, func(context.Context) (string, bool, error) { return "pending", false, nil })
	require.ErrorAs(t, err, &still)
	assert.Equal(t, "pending", still.State)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the context's end is kept")
}
