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
	assert.Empty(t, refusals(t, `{"namespace":"agents","template":"python-runtime"}`))
}

func TestEveryBadFieldIsNamed(t *testing.T) {
	got := refusals(t, `{"namespace":"Agents_1","image":"ghcr.io/org/sandboxd:1.0","template":"python",
		"runtime_class_name":"G Visor","labels":{"bad key!":"x","ok":"not ok!","auxilia/thread":"t"},
		"workdir":"work/../x","reach_pods":"tunnel","resources":{"cpu":0.5}}`)
	for _, field := range []string{"namespace", "image", "runtime_class_name", "labels.bad key!", "labels.ok",
		"labels.auxilia/thread", "workdir", "reach_pods", "resources.cpu"} {
		assert.Contains(t, got, field)
	}
	assert.Contains(t, got["image"], "must be empty when a template is named")
	assert.Contains(t, got["resources.cpu"], "the template sets it")
	assert.Contains(t, got["labels.auxilia/thread"], "kept for the labels this server")
}

func TestAPodIsDescribedOnce(t *testing.T) {
	assert.Equal(t, map[string]string{"image": "give an image, or name a SandboxTemplate in template"},
		refusals(t, `{"namespace":"agents"}`))
	assert.Contains(t, refusals(t, `{"namespace":"agents","template":"Not_A_Name"}`), "template")
	assert.Contains(t, refusals(t, `{"namespace":""}`), "namespace")
}

func TestTheImagesPodRunsSandboxdWithItsResourcesAndDisk(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Image, cfg.Resources = "ghcr.io/org/sandboxd:1.0", provider.InstanceResources{CPU: 1.5, MemoryMB: 768, DiskMB: 2048}
	cfg.RuntimeClassName = "kata"
	b := cfg.imageBlueprint()
	assert.JSONEq(t, `{"metadata":{},"spec":{"restartPolicy":"Never","runtimeClassName":"kata","containers":[{
		"name":"sandboxd","image":"ghcr.io/org/sandboxd:1.0",
		"ports":[{"name":"grpc","containerPort":9090},{"name":"files","containerPort":8080}],
		"readinessProbe":{"httpGet":{"path":"/v1/health","port":8080},"periodSeconds":2},
		"resources":{"requests":{"cpu":"1500m","memory":"768Mi"},"limits":{"cpu":"1500m","memory":"768Mi"}},
		"volumeMounts":[{"name":"workspace","mountPath":"/workspace"}]}]}}`, string(b.PodTemplate))
	assert.JSONEq(t, `[{"metadata":{"name":"workspace"},"spec":{"accessModes":["ReadWriteOnce"],
		"resources":{"requests":{"storage":"2048Mi"}}}}]`, string(b.VolumeClaimTemplates))

	cfg.Resources = provider.InstanceResources{}
	assert.Empty(t, cfg.imageBlueprint().VolumeClaimTemplates, "no disk asked: no claim")
}
