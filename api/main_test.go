package api_test

import (
	"os"
	"testing"

	"github.com/auxilia/sandboxes/pkg/gateway/gatewaytest"
	"github.com/auxilia/sandboxes/pkg/provider/local/localtest"
)

// TestMain deletes the gateway binary the Cloud Run tests build and the
// Python template the local provider's instances shared.
func TestMain(m *testing.M) {
	code := m.Run()
	gatewaytest.RemoveBinary()
	localtest.Remove()
	os.Exit(code)
}
