package run_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestABusyInstanceSaysWhenToTryAgain(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		r := w.start(t, "t1")
		w.fake.Fail("execute", &provider.Error{Kind: provider.ErrBusy, Provider: "fake", Op: "execute",
			Message: "instance x already runs 16 commands", RetryAfter: 5 * time.Second})

		_, err := w.app.Runs.Execute(context.Background(), w.ws.ID, r.ID, run.ExecInput{Command: "true"})
		var ae *auxilia.Error
		require.True(t, errors.As(err, &ae), "%v", err)
		assert.Equal(t, auxilia.CodeSandboxBusy, ae.Code, "busy, not unavailable: the sandbox works")
		assert.Equal(t, 5*time.Second, ae.RetryAfter)
		assert.Equal(t, "Sandbox 'Fake' is busy: instance x already runs 16 commands. Try again in 5s.", ae.Message)
	})
}

// A provider's 429 is relayed with its Retry-After: not worded as a
// sandbox that cannot be used, and not asked again at once.
func TestAProvidersRateLimitSaysWhenToTryAgain(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.fake.Fail("create", &provider.Error{Kind: provider.ErrRateLimited, Provider: "fake", Op: "create",
			Message: "429 Too Many Requests", RetryAfter: time.Hour})

		_, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, "t1")
		var ae *auxilia.Error
		require.True(t, errors.As(err, &ae), "%v", err)
		assert.Equal(t, auxilia.CodeProviderLimited, ae.Code)
		assert.Equal(t, time.Hour, ae.RetryAfter)
		assert.Contains(t, ae.Message, "429 Too Many Requests")
		assert.Equal(t, 1, w.fake.Calls("create"), "a rate limit is not asked again at once")
	})
}
