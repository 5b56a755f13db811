package run_test

import (
	"os"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/local/localtest"
)

// TestMain removes the Python template the local provider's instances
// shared.
func TestMain(m *testing.M) {
	code := m.Run()
	localtest.Remove()
	os.Exit(code)
}
