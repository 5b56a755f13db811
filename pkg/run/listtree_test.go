package run

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// listingClient is a provider's client that lists trees in one call, or
// says it cannot; its commands print walked.
type listingClient struct {
	provider.Client
	paths    []string
	err      error
	executed int
}

func (l *listingClient) ListTree(_ context.Context, _ provider.Instance, _ string, limit int) ([]string, bool, error) {
	if len(l.paths) > limit {
		return l.paths[:limit], true, l.err
	}
	return l.paths, false, l.err
}

func (l *listingClient) Execute(context.Context, provider.Instance, provider.ExecRequest) (provider.ExecResult, error) {
	l.executed++
	return provider.ExecResult{Output: "/w/walked\n"}, nil
}

// Glob takes a provider's listing where it has one, leaving out what
// find's prune does (.venv folders below the root, and all in them), and
// walks where the provider says it cannot list.
func TestListTreeTakesTheProvidersListingOrWalks(t *testing.T) {
	s := &Service{}
	lister := &listingClient{paths: []string{"/w/a.go", "/w/.venv", "/w/.venv/lib/x.py", "/w/src/.venv/y", "/w/src/venv.go", "/w/.hidden"}}
	paths, truncated, err := s.listTree(context.Background(), &call{client: lister}, "/w")
	require.NoError(t, err)
	assert.False(t, truncated)
	assert.Equal(t, []string{"/w/a.go", "/w/src/venv.go", "/w/.hidden"}, paths)
	assert.Zero(t, lister.executed)

	paths, _, err = s.listTree(context.Background(), &call{client: lister}, "/w/.venv")
	require.NoError(t, err)
	assert.Contains(t, paths, "/w/.venv/lib/x.py", "a search of a .venv looks in it")

	lister.err = provider.Errorf(provider.ErrUnsupported, "daytona", "list tree", "no route")
	paths, _, err = s.listTree(context.Background(), &call{client: lister}, "/w")
	require.NoError(t, err)
	assert.Equal(t, []string{"/w/walked"}, paths)
	assert.Equal(t, 1, lister.executed)
}

// A listing longer than glob looks at is cut, and says so.
func TestWithoutSkippedKeepsTheBound(t *testing.T) {
	kept, cut := withoutSkipped([]string{"/w/a", "/w/.venv/x", "/w/b", "/w/c"}, "/w", 2)
	assert.Equal(t, []string{"/w/a", "/w/b"}, kept)
	assert.True(t, cut)
}
