package local

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/providertest"
)

func TestConformance(t *testing.T) {
	providertest.Run(t, newClient(t).client)
}

func TestLifecycleConformance(t *testing.T) {
	providertest.RunLifecycle(t, newClient(t).client)
}
