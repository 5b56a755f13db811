package kubetest

import (
	"fmt"
	"os"
	"sync"

	"k8s.io/apiserver/pkg/storage/storagebackend"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// startAPIServer runs kube-apiserver in this process against etcdURL. The
// server outlives any single test, so it gets a process-wide TB whose
// cleanups run at Stop rather than the calling test's.
func startAPIServer(etcdURL string, life *processTB) (*kubeapiservertesting.TestServer, error) {
	storage := storagebackend.NewDefaultConfig("/registry", nil)
	storage.Transport.ServerList = []string{etcdURL}
	flags := []string{
		// Quota refusals need the admission plugin, which is on by default;
		// listing it keeps that explicit.
		"--enable-admission-plugins=ResourceQuota",
		"--authorization-mode=RBAC",
	}
	server, err := kubeapiservertesting.StartTestServer(life, nil, flags, storage)
	if err != nil {
		return nil, fmt.Errorf("start kube-apiserver: %w", err)
	}
	life.Cleanup(server.TearDownFn)
	return &server, nil
}

// processTB satisfies the test-server's TB for a server that lives as long
// as the test binary. Its log goes nowhere unless KUBETEST_VERBOSE is set;
// failures become panics, since no test owns them.
type processTB struct {
	mu       sync.Mutex
	cleanups []func()
	tempDirs []string
}

func (p *processTB) Attr(key, value string) {}
func (p *processTB) Chdir(dir string)       { panic("kubetest: Chdir is not supported") }
func (p *processTB) Cleanup(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cleanups = append(p.cleanups, f)
}
func (p *processTB) Error(args ...any)                 { p.Log(args...) }
func (p *processTB) Errorf(format string, args ...any) { p.Logf(format, args...) }
func (p *processTB) Fail()                             {}
func (p *processTB) FailNow()                          { panic("kubetest: control plane failed") }
func (p *processTB) Failed() bool                      { return false }
func (p *processTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (p *processTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (p *processTB) Helper()                           {}
func (p *processTB) Log(args ...any) {
	if verbose() {
		fmt.Fprintln(os.Stderr, args...)
	}
}
func (p *processTB) Logf(format string, args ...any) {
	if verbose() {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}
func (p *processTB) Name() string                  { return "kubetest" }
func (p *processTB) Setenv(key, value string)      { panic("kubetest: Setenv is not supported") }
func (p *processTB) Skip(args ...any)              { panic("kubetest: Skip is not supported") }
func (p *processTB) Skipf(format string, a ...any) { panic("kubetest: Skipf is not supported") }
func (p *processTB) SkipNow()                      { panic("kubetest: SkipNow is not supported") }
func (p *processTB) Skipped() bool                 { return false }
func (p *processTB) TempDir() string {
	dir, err := os.MkdirTemp("", "kubetest")
	if err != nil {
		panic(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tempDirs = append(p.tempDirs, dir)
	return dir
}

// finish runs the cleanups last-registered first, then removes temp dirs.
func (p *processTB) finish() {
	p.mu.Lock()
	cleanups, dirs := p.cleanups, p.tempDirs
	p.cleanups, p.tempDirs = nil, nil
	p.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	for _, dir := range dirs {
		_ = os.RemoveAll(dir)
	}
}
