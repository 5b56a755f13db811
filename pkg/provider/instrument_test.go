package provider

import (
	"context"
	"errors"
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
