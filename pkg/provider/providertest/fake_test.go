package providertest_test

import (
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
