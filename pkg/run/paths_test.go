package run

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// TestResolveFollowsTheProvidersRule: a provider that says its files are
// only those in the working directory gets paths out of it refused; any
// other gets them resolved, whatever it is called.
func TestResolveFollowsTheProvidersRule(t *testing.T) {
	inst := provider.Instance{WorkDir: "/workspace"}
	for _, c := range []struct {
		name     string
		confined bool
		in, want string
		refused  bool
	}{
		{"relative", true, "a/../b", "/workspace/b", false},
		{"empty", true, "", "/workspace", false},
		{"out, confined", true, "../etc/passwd", "", true},
		{"absolute out, confined", true, "/etc", "", true},
		{"out, not confined", false, "../etc/passwd", "/etc/passwd", false},
		{"absolute, not confined", false, "/tmp/x/", "/tmp/x", false},
	} {
		call := &call{sandbox: auxilia.Sandbox{SandboxSpec: auxilia.SandboxSpec{Provider: "local"}}, instance: inst, filesInWorkDir: c.confined}
		got, err := resolve(call, "path", c.in)
		if c.refused {
			if !auxilia.IsCode(err, auxilia.CodeInvalid) {
				t.Errorf("%s: resolve(%q) = %q, %v; want a validation error", c.name, c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: resolve(%q) = %q, %v; want %q", c.name, c.in, got, err, c.want)
		}
	}
}
