package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
)

// echoing is a provider that repeats the credential back in its error.
type echoing struct{ Client }

func (echoing) Probe(context.Context) error {
	return Errorf(ErrUnauthorized, "x", "probe", "key osk-very-secret-123 is not valid")
}

func TestInstrumentedErrorsNeverCarryTheSecret(t *testing.T) {
	c := Instrument(echoing{}, "x", auxilia.NoMetrics{}, "osk-very-secret-123")
	err := c.Probe(context.Background())
	assert.NotContains(t, err.Error(), "osk-very-secret-123")
	assert.True(t, errors.Is(err, ErrUnauthorized), "the error keeps its kind")
}

// longEcho is a provider whose errors repeat the credential where a clip
// would cut it, or in a plain error.
type longEcho struct {
	Client
	secret string
}

func (l longEcho) Probe(context.Context) error {
	return Errorf(ErrUnauthorized, "x", "probe", "%s key %s is not valid", strings.Repeat(".", MaxMessage-12), l.secret)
}

func (l longEcho) Destroy(context.Context, Instance) error {
	return fmt.Errorf("tls: bad key %s: %w", strings.ToUpper(l.secret), context.DeadlineExceeded)
}

func TestInstrumentedErrorsAreScrubbedBeforeTheyAreClipped(t *testing.T) {
	const secret = "osk-very-secret-0123456789"
	c := Instrument(longEcho{secret: secret}, "x", auxilia.NoMetrics{}, secret)
	err := c.Probe(context.Background())
	assert.NotContains(t, err.Error(), secret[:5], "no part of a secret cut by the clip survives")
	assert.Contains(t, err.Error(), "key ••••")
	assert.True(t, errors.Is(err, ErrUnauthorized))

	err = c.Destroy(context.Background(), Instance{})
	assert.NotContains(t, strings.ToLower(err.Error()), secret[:5], "an error that is not a provider's is scrubbed too")
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "and keeps its kind")
}
