package kubetest

import (
	"os"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// verbose is set by KUBETEST_VERBOSE: the control plane's logs then go to
// standard error. Otherwise they go nowhere, so test output stays the tests'.
func verbose() bool {
	return os.Getenv("KUBETEST_VERBOSE") != ""
}

func quietLogs() {
	if !verbose() {
		klog.SetLogger(logr.Discard())
	}
}

func controllerLogger() logr.Logger {
	if verbose() {
		return zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true))
	}
	return logr.Discard()
}
