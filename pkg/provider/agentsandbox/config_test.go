package agentsandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// refusals decodes raw over the defaults and returns what validation
// refuses, by field.
func refusals(t *testing.T, raw string) map[string]string {
	t.Helper()
	cfg, errs := provider.DecodeConfig(Kind{}, []byte(raw))
	require.Empty(t, errs)
	got := map[string]string{}
	for _, fe := range provider.ValidateConfig(Kind{}, cfg, provider.Policy{}) {
		got[fe.Field] = fe.Message
	}
	return got
}

func TestAnImageWithItsResourcesIsAccepted(t *testing.T) {
	assert.Empty(t, refusals(t, `{"namespace":"agents","image":"ghcr.io/org/sandboxd:1.0","runtime_class_name":"gvisor",
		"labels":{"team":"data","example.com/owner":"ana"},"resources":{"cpu":0.5,"memory_mb":512,"disk_mb":2048}}`))
	assert.Empty(t, refusals(t, `{"namespace":"agents","image":"","template":"python-runtime"}`))
	assert.Empty(t, refusals(t, `{}`), "the defaults validate")
}

func TestEveryBadFieldIsNamed(t *testing.T) {
	got := refusals(t, `{"namespace":"Agents_1","image":"ghcr.io/org/sandboxd:1.0","template":"python",
		"runtime_class_name":"G Visor","labels":{"bad key!":"x","ok":"not ok!","auxilia/thread":"t"},
		"workdir":"work/../x","reach_pods":"tunnel","resources":{"cpu":0.5}}`)
	for _, field := range []string{"namespace", "template", "runtime_class_name", "labels.bad key!", "labels.ok",
		"labels.auxilia/thread", "workdir", "reach_pods", "resources.cpu"} {
		assert.Contains(t, got, field)
	}
	assert.Contains(t, got["template"], "name a template or give an image, not both")
	assert.Contains(t, got["resources.cpu"], "the template sets it")
	assert.Contains(t, got["labels.auxilia/thread"], "kept for the labels this server")
}

func TestAPodIsDescribedOnce(t *testing.T) {
	assert.Equal(t, map[string]string{"image": "give an image, or name a SandboxTemplate in template"},
		refusals(t, `{"namespace":"agents","image":""}`))
	assert.Contains(t, refusals(t, `{"namespace":"agents","image":"","template":"Not_A_Name"}`), "template")
	assert.Contains(t, refusals(t, `{"namespace":""}`), "namespace")
}

func TestTheImagesPodRunsSandboxdWithItsResourcesAndDisk(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Image, cfg.Resources = "ghcr.io/org/sandboxd:1.0", provider.InstanceResources{CPU: 1.5, MemoryMB: 768, DiskMB: 2048}
	cfg.RuntimeClassName = "kata"
	b := cfg.imageBlueprint()
	assert.JSONEq(t, `{"metadata":{},"spec":{"restartPolicy":"Never","runtimeClassName":"kata",
		"automountServiceAccountToken":false,"securityContext":{"runAsNonRoot":true,"fsGroup":1000},"containers":[{
		"name":"sandboxd","image":"ghcr.io/org/sandboxd:1.0","args":["--root-dir=/workspace"],
		"ports":[{"name":"grpc","containerPort":9090,"protocol":"TCP"},{"name":"files","containerPort":8080,"protocol":"TCP"}],
		"readinessProbe":{"httpGet":{"path":"/v1/health","port":8080},"periodSeconds":2},
		"securityContext":{"runAsUser":1000,"runAsGroup":1000,"runAsNonRoot":true,"allowPrivilegeEscalation":false,
			"capabilities":{"drop":["ALL"]}},
		"resources":{"requests":{"cpu":"1500m","memory":"768Mi"},"limits":{"cpu":"1500m","memory":"768Mi"}},
		"volumeMounts":[{"name":"workspace","mountPath":"/workspace"}]}]}}`, string(b.PodTemplate))
	assert.JSONEq(t, `[{"metadata":{"name":"workspace"},"spec":{"accessModes":["ReadWriteOnce"],
		"resources":{"requests":{"storage":"2048Mi"}}}}]`, string(b.VolumeClaimTemplates))

	cfg.Resources = provider.InstanceResources{}
	b = cfg.imageBlueprint()
	assert.Empty(t, b.VolumeClaimTemplates, "no disk asked: no claim")
	assert.Contains(t, string(b.PodTemplate), `"volumes":[{"emptyDir":{},"name":"workspace"}]`, "but an emptyDir")
}

func TestANetworkIsRuledByAddressesNotDomains(t *testing.T) {
	assert.Empty(t, refusals(t, `{"namespace":"agents","image":"ghcr.io/org/sandboxd:1.0","network":{"default":"deny",
		"allow":["198.51.100.0/24","2001:db8::/32","203.0.113.9"],"deny":["198.51.100.7","2001:db8:1::/48"]}}`))
	assert.Empty(t, refusals(t, `{"namespace":"agents","image":"ghcr.io/org/sandboxd:1.0","network":{"default":"allow","allow":[],"deny":["203.0.113.0/24"]}}`))

	got := refusals(t, `{"namespace":"agents","image":"ghcr.io/org/sandboxd:1.0","network":{"default":"deny",
		"allow":["pypi.org","10.0.0.0/16","198.51.100.0/24"],"deny":["*.example.com"]}}`)
	assert.Contains(t, got["network.allow.0"], "cannot filter by domain; give an IP address or network")
	assert.Contains(t, got["network.allow.1"], "private, loopback or link-local addresses")
	assert.NotContains(t, got, "network.allow.2")
	assert.Contains(t, got["network.deny.0"], "cannot filter by domain")
}

func TestANamedTemplatesNetworkIsItsOwn(t *testing.T) {
	assert.Empty(t, refusals(t, `{"namespace":"agents","image":"","template":"python-runtime","network":{"default":"allow","allow":[],"deny":[]}}`))

	got := refusals(t, `{"namespace":"agents","image":"","template":"python-runtime",
		"network":{"default":"deny","allow":["198.51.100.0/24"],"deny":["198.51.100.7"]}}`)
	for _, field := range []string{"network.default", "network.allow", "network.deny"} {
		assert.Contains(t, got[field], "set it in the SandboxTemplate's networkPolicy", field)
	}
	assert.Contains(t, got["network.default"], "must be allow")
}

func TestDefaultPackagesNeedSomewhereToDownloadFrom(t *testing.T) {
	got := refusals(t, `{"namespace":"agents","image":"ghcr.io/org/sandboxd:1.0","default_packages":["requests"],
		"network":{"default":"deny","allow":[],"deny":[]}}`)
	assert.Contains(t, got, "default_packages")
}
