package gateway

import (
	"net/http"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/stretchr/testify/assert"
)

func TestEachSandboxCarriesItsOwnRules(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.AllowEgress = true })
	rules := &Network{Default: "deny", Allow: []string{"pypi.org", "198.51.100.0/24"}, Deny: []string{"198.51.100.7"}}
	sb := h.create(sandboxSpec{Network: rules})
	assert.True(t, sb.AllowEgress, "an allow list is a way out")
	assert.Equal(t, *rules, sb.Network)
	h.exec(sb.ID, map[string]any{"command": "true"})
	job := h.launcher.lastJob()
	assert.True(t, job.Network)
	assert.Equal(t, bubblewrap.Egress{DenyByDefault: true, Allow: rules.Allow, Deny: rules.Deny}, job.Egress, "the launcher is told the rules")

	offline := h.create(sandboxSpec{Network: &Network{Default: "deny", Allow: []string{}, Deny: []string{}}})
	h.exec(offline.ID, map[string]any{"command": "true"})
	assert.False(t, h.launcher.lastJob().Network, "deny without an allow list is no network at all")
}

func TestTheDeploymentBoundsEverySandboxsNetwork(t *testing.T) {
	h := newHarness(t) // GATEWAY_ALLOW_EGRESS off
	sb := h.create(sandboxSpec{Network: &Network{Default: "deny", Allow: []string{"pypi.org"}, Deny: []string{}}})
	assert.False(t, sb.AllowEgress)
	assert.True(t, sb.EgressRequested)
	assert.Equal(t, offlineNetwork(), sb.Network, "what is granted, not what was asked")
	h.exec(sb.ID, map[string]any{"command": "true"})
	assert.False(t, h.launcher.lastJob().Network)
}

func TestResourcesAreBoundedByTheDeployment(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.SandboxMemoryMB, c.SandboxMaxFileMB = 2048, 512 })
	sb := h.create(sandboxSpec{Resources: Resources{MemoryMB: 256, DiskMB: 64}})
	h.exec(sb.ID, map[string]any{"command": "true"})
	assert.Equal(t, Resources{MemoryMB: 256, DiskMB: 64}, h.launcher.lastJob().Resources)

	p := problem(t, h.call("POST", "/sandboxes", map[string]any{"resources": map[string]any{"memory_mb": 4096, "disk_mb": -1},
		"network": map[string]any{"default": "block", "allow": []string{"*.pythonhosted.org", "not a host"}}}),
		http.StatusUnprocessableEntity, auxilia.CodeInvalid)
	got := map[string]string{}
	for _, e := range p.Errors {
		got[e.Field] = e.Message
	}
	assert.Equal(t, map[string]string{
		"resources.memory_mb": "must be at most 2048 on this gateway",
		"resources.disk_mb":   "must be 0 or at least 1",
		"network.default":     "must be allow or deny",
		"network.allow.0":     "wildcard domains cannot be resolved; list each domain",
		"network.allow.1":     "must be a domain, an IP address or a network in CIDR form",
	}, got)
}

func TestTheLauncherTakesTheSandboxsBoundsWithinItsOwn(t *testing.T) {
	l := &BubblewrapLauncher{MemoryMB: 2048, MaxFileMB: 1024}
	j := l.jail(Job{Workspace: "/srv/w", Resources: Resources{MemoryMB: 256}}, nil)
	assert.Equal(t, 256, j.MemoryMB)
	assert.Equal(t, 1024, j.MaxFileMB, "0 is the launcher's own")
	j = l.jail(Job{Workspace: "/srv/w", Resources: Resources{MemoryMB: 4096, DiskMB: 10}}, nil)
	assert.Equal(t, 2048, j.MemoryMB, "never past the launcher's own")
	assert.Equal(t, 10, j.MaxFileMB)
}
