package api_test

import (
	"os"
	"testing"

	"github.com/auxilia/sandboxes/pkg/gateway/gatewaytest"
)

// TestMain deletes the gateway binary the Cloud Run tests build.
func TestMain(m *testing.M) {
	code := m.Run()
	gatewaytest.RemoveBinary()
	os.Exit(code)
}
