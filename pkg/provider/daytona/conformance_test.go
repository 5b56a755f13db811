package daytona_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
)

func TestConformance(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 2})
	providertest.Run(t, openClient(t, fake, daytonatest.DefaultKey))
}

func TestConformanceLifecycle(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 2})
	providertest.RunLifecycle(t, openClient(t, fake, daytonatest.DefaultKey))
}

func TestConformanceTerminal(t *testing.T) {
	_, client, inst := started(t, daytonatest.Options{})
	providertest.RunTerminal(t, client, inst)
}
