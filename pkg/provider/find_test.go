package provider

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type labelled struct{ id, creation string }

// searchFor returns a search that lists answers one after the other.
func searchFor(creation string, answers ...func() ([]labelled, error)) (*Search[labelled], *int) {
	calls := 0
	return &Search[labelled]{
		List: func(context.Context) ([]labelled, error) {
			answer := answers[min(calls, len(answers)-1)]
			calls++
			return answer()
		},
		Match:   func(l labelled) bool { return l.creation == creation },
		Looks:   3,
		Backoff: Backoff{First: time.Millisecond},
	}, &calls
}

func TestSearchFindsWhatCarriesTheLabelOnALaterLook(t *testing.T) {
	s, calls := searchFor("c1",
		func() ([]labelled, error) { return nil, nil },
		func() ([]labelled, error) { return []labelled{{"other", "c2"}, {"mine", "c1"}}, nil })
	got, found, err := s.Find(context.Background())
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, "mine", got.id)
	assert.Equal(t, 2, *calls)
}

func TestSearchIgnoresWhatAServerThatDoesNotFilterLists(t *testing.T) {
	s, calls := searchFor("c1", func() ([]labelled, error) { return []labelled{{"other", "c2"}}, nil })
	_, found, err := s.Find(context.Background())
	require.NoError(t, err)
	assert.False(t, found)
	assert.Equal(t, 3, *calls, "an eventually consistent listing is asked again")
}

func TestSearchNotFindingIsAnAnswerOnlyWhenAListingSucceeded(t *testing.T) {
	down := errors.New("down")
	s, _ := searchFor("c1", func() ([]labelled, error) { return nil, down })
	_, found, err := s.Find(context.Background())
	assert.False(t, found)
	assert.Same(t, down, err)

	s, _ = searchFor("c1",
		func() ([]labelled, error) { return nil, down },
		func() ([]labelled, error) { return nil, nil },
		func() ([]labelled, error) { return nil, down })
	_, found, err = s.Find(context.Background())
	assert.False(t, found)
	assert.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, found, err = s.Find(ctx)
	assert.False(t, found)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestSalvageHandsWhatItFindsOnlyToACallerStillThere(t *testing.T) {
	s, _ := searchFor("c1", func() ([]labelled, error) { return []labelled{{"mine", "c1"}}, nil })
	var destroyed []string
	destroy := func(ctx context.Context, l labelled) {
		assert.NoError(t, ctx.Err(), "destroyed with a context of its own")
		destroyed = append(destroyed, l.id)
	}
	got, ok := s.Salvage(context.Background(), time.Second, destroy)
	assert.True(t, ok)
	assert.Equal(t, "mine", got.id)
	assert.Empty(t, destroyed)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, ok = s.Salvage(ctx, time.Second, destroy)
	assert.False(t, ok)
	assert.Equal(t, []string{"mine"}, destroyed, "what a caller that left made is not left behind")

	s, _ = searchFor("c1", func() ([]labelled, error) { return nil, errors.New("down") })
	_, ok = s.Salvage(context.Background(), time.Second, destroy)
	assert.False(t, ok)
}
