package kubetest_test

import (
	"os"
	"testing"

	"github.com/auxilia/sandboxes/kube/kubetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	kubetest.Stop()
	os.Exit(code)
}
