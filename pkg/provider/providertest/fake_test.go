package providertest_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
)

// The fake passes the suite that the tests relying on it assume.
func TestFakeConforms(t *testing.T) {
	fake := providertest.NewFake(t.TempDir())
	client, err := fake.Open(provider.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	providertest.Run(t, client)
}

// The fake's terminal, a bash of the host, passes the terminal suite.
func TestFakeTerminalConforms(t *testing.T) {
	fake := providertest.NewFake(t.TempDir())
	inst, err := fake.Create(context.Background(), provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1"})
	if err != nil {
		t.Fatal(err)
	}
	providertest.RunTerminal(t, fake, inst)
}
