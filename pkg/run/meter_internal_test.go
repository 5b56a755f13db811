package run

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Meters queued while a write is under way go out together in the next
// write, one per workspace; flush waits for every meter queued before it.
func TestCommandMetersShareTheirWrites(t *testing.T) {
	var mu sync.Mutex
	var writes [][]string // each write's run ids
	first := make(chan struct{})
	release := make(chan struct{})
	m := newCommandMeter(func(_ context.Context, ws string, uses []auxilia.CommandUse) error {
		mu.Lock()
		ids := []string{}
		for _, u := range uses {
			ids = append(ids, ws+"/"+u.RunID)
		}
		writes = append(writes, ids)
		n := len(writes)
		mu.Unlock()
		if n == 1 {
			close(first)
			<-release
		}
		return nil
	})
	m.add("w1", auxilia.CommandUse{RunID: "a"})
	<-first // the writer is busy with a
	for _, id := range []string{"b", "c", "d"} {
		m.add("w1", auxilia.CommandUse{RunID: id})
	}
	m.add("w2", auxilia.CommandUse{RunID: "e"})

	flushed := make(chan error, 1)
	go func() { flushed <- m.flush(context.Background()) }()
	select {
	case <-flushed:
		t.Fatal("flush returned while meters were still queued")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-flushed)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, writes, 3, "a alone, then b, c and d in one statement, e in its workspace's")
	assert.Equal(t, []string{"w1/a"}, writes[0])
	assert.ElementsMatch(t, [][]string{{"w1/b", "w1/c", "w1/d"}, {"w2/e"}}, writes[1:])
}

// A meter that cannot be written is given up (and logged): flush does not
// wait for it forever, and later meters are written.
func TestACommandMeterThatFailsIsGivenUp(t *testing.T) {
	var mu sync.Mutex
	written := 0
	m := newCommandMeter(func(_ context.Context, _ string, uses []auxilia.CommandUse) error {
		if uses[0].RunID == "bad" {
			return errors.New("disk full")
		}
		mu.Lock()
		written += len(uses)
		mu.Unlock()
		return nil
	})
	m.add("w", auxilia.CommandUse{RunID: "bad"})
	require.NoError(t, m.flush(context.Background()))
	m.add("w", auxilia.CommandUse{RunID: "good"})
	require.NoError(t, m.flush(context.Background()))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, written)
}

// A flush ends with its context, the meters still queued.
func TestAFlushEndsWithItsContext(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	m := newCommandMeter(func(context.Context, string, []auxilia.CommandUse) error { <-block; return nil })
	m.add("w", auxilia.CommandUse{RunID: "a"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, m.flush(ctx), context.DeadlineExceeded)
}
