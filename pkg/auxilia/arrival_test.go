package auxilia_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
)

func TestYieldTurnDatesARequestLater(t *testing.T) {
	at := time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC)
	got, ok := auxilia.ArrivedAt(auxilia.YieldTurn(auxilia.Arrived(context.Background(), at), time.Second))
	assert.True(t, ok)
	assert.Equal(t, at.Add(time.Second), got)
}

// Work no request carries has no arrival to yield: it stays as old as
// each of its statements.
func TestYieldTurnLeavesWorkWithoutAnArrivalAsItIs(t *testing.T) {
	_, ok := auxilia.ArrivedAt(auxilia.YieldTurn(context.Background(), time.Second))
	assert.False(t, ok)
}
