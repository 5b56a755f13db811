package local

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lowCeilings are a server's ceilings well under the provider's own bounds.
var lowCeilings = Ceilings{MemoryMB: 512, DiskMB: 2048, CPU: 1, Processes: 128}

// fieldErrors validates raw as a config of k, by field.
func fieldErrors(t *testing.T, k Kind, raw string) map[string]string {
	t.Helper()
	cfg, errs := provider.DecodeConfig(k, json.RawMessage(raw))
	require.Empty(t, errs)
	got := map[string]string{}
	for _, fe := range provider.ValidateConfig(k, cfg, provider.Policy{}) {
		got[fe.Field] = fe.Message
	}
	return got
}

func TestASaveAboveACeilingIsRefusedNamingIt(t *testing.T) {
	k := Kind{Ceilings: lowCeilings}
	assert.Empty(t, fieldErrors(t, k, `{"resources":{"memory_mb":512,"disk_mb":2048,"cpu":1},"max_processes":128}`),
		"at the ceilings is within them")
	assert.Equal(t, map[string]string{
		"resources.memory_mb": "must be at most 512 MiB on this server (AUXILIA_LOCAL_MAX_MEMORY_MB)",
		"resources.disk_mb":   "must be at most 2,048 MiB on this server (AUXILIA_LOCAL_MAX_DISK_MB)",
		"resources.cpu":       "must be at most 1 on this server (AUXILIA_LOCAL_MAX_CPU)",
		"max_processes":       "must be at most 128 on this server (AUXILIA_LOCAL_MAX_PROCESSES)",
	}, fieldErrors(t, k, `{"resources":{"memory_mb":65536,"disk_mb":1048576,"cpu":1.5},"max_processes":4096}`),
		"every field above its ceiling at once, each naming its variable")
	assert.Equal(t, map[string]string{
		"resources.memory_mb": "must be at most 512 MiB on this server (AUXILIA_LOCAL_MAX_MEMORY_MB)",
		"max_processes":       "must be at most 128 on this server (AUXILIA_LOCAL_MAX_PROCESSES)",
	}, fieldErrors(t, k, `{"resources":{"memory_mb":1048576},"max_processes":100000}`),
		"past the provider's own bounds too, the server's ceiling is what the admin must meet")
}

func TestANewSandboxStartsWithinTheCeilings(t *testing.T) {
	k := Kind{Ceilings: Ceilings{MemoryMB: 512, DiskMB: 4096, CPU: 0.5, Processes: 128}}
	cfg := k.NewConfig().(*Config)
	assert.Equal(t, provider.InstanceResources{MemoryMB: 512, DiskMB: 1024}, cfg.Resources,
		"a default above its ceiling is lowered to it")
	assert.Equal(t, 128, cfg.MaxProcesses)
	assert.Empty(t, provider.ValidateConfig(k, cfg, provider.Policy{}), "the defaults are never refused")

	cfg.Resources = provider.InstanceResources{}
	assert.Equal(t, 512, cfg.memoryMB(), "0 is the provider's default, or the ceiling where lower")
	assert.Equal(t, 1024, cfg.diskMB())
	assert.Equal(t, 0.5, cfg.cpu(), "0 CPUs is the server's ceiling")
	cfg.Resources.CPU = 0.25
	assert.Equal(t, 0.25, cfg.cpu())
	assert.Zero(t, DefaultConfig().cpu(), "without a ceiling, no bound")

	k.DataDir = t.TempDir()
	unset := DefaultConfig() // a config made elsewhere, its kind's ceilings unknown to it
	unset.Resources = provider.InstanceResources{}
	c, err := k.Open(provider.Settings{Config: unset})
	require.NoError(t, err)
	assert.Equal(t, 0.5, c.(*client).config.cpu(), "the client holds its kind's ceilings")
	assert.Equal(t, 512, c.(*client).jail(setupUser, "/srv/x", nil).MemoryMB)
}

func TestTheCatalogueShowsTheCeilingsAsMaxima(t *testing.T) {
	props := provider.Schema(Kind{Ceilings: lowCeilings})["properties"].(map[string]any)
	resources := props["resources"].(map[string]any)["properties"].(map[string]any)
	assert.Equal(t, 512.0, resources["memory_mb"].(map[string]any)["maximum"])
	assert.Equal(t, 2048.0, resources["disk_mb"].(map[string]any)["maximum"])
	assert.Equal(t, 1.0, resources["cpu"].(map[string]any)["maximum"])
	assert.Equal(t, 128.0, props["max_processes"].(map[string]any)["maximum"])

	unset := provider.Schema(Kind{})["properties"].(map[string]any)
	assert.Equal(t, 4096, unset["max_processes"].(map[string]any)["maximum"], "without ceilings, the provider's own bounds")

	var envs []string
	for _, s := range (Kind{}).Describe().Settings {
		envs = append(envs, s.Env)
	}
	assert.Equal(t, []string{"AUXILIA_LOCAL_PROVIDER", "AUXILIA_LOCAL_MAX_MEMORY_MB", "AUXILIA_LOCAL_MAX_DISK_MB",
		"AUXILIA_LOCAL_MAX_CPU", "AUXILIA_LOCAL_MAX_PROCESSES", "AUXILIA_LOCAL_JAIL_IDS", "AUXILIA_LOCAL_PACKAGE_INDEX", "AUXILIA_LOCAL_ISOLATION", "AUXILIA_LOCAL_GVISOR_PLATFORM"}, envs, "the catalogue lists the variables that set them")
}

func TestCeilingsAreHalfOfWhatTheHostHasUnlessSet(t *testing.T) {
	host := bubblewrap.Host{MemoryMB: 23808, DiskMB: 258019, CPU: 3, Processes: 32768}
	for _, tc := range []struct {
		name   string
		host   bubblewrap.Host
		values provider.OperatorValues
		want   Ceilings
	}{
		{"unset", host, nil, Ceilings{MemoryMB: 11904, DiskMB: 129009, CPU: 1.5, Processes: 4096}},
		{"set", host, provider.OperatorValues{"AUXILIA_LOCAL_MAX_MEMORY_MB": "23808", "AUXILIA_LOCAL_MAX_DISK_MB": "64",
			"AUXILIA_LOCAL_MAX_CPU": "0.25", "AUXILIA_LOCAL_MAX_PROCESSES": "8"},
			Ceilings{MemoryMB: 23808, DiskMB: 64, CPU: 0.25, Processes: 8}},
		{"a small host", bubblewrap.Host{MemoryMB: 100, DiskMB: 3000, CPU: 1, Processes: 500},
			nil, Ceilings{MemoryMB: 64, DiskMB: 1500, CPU: 0.5, Processes: 250}},
		{"a large host", bubblewrap.Host{MemoryMB: 1 << 21, DiskMB: 1 << 24, CPU: 255, Processes: 1 << 22},
			nil, Ceilings{MemoryMB: 65536, DiskMB: 1 << 20, CPU: 64, Processes: 4096}},
		{"no host (off Linux)", bubblewrap.Host{}, nil, Ceilings{MemoryMB: 65536, DiskMB: 1 << 20, CPU: 64, Processes: 4096}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ceilingsOn(tc.values, tc.host)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestACeilingBeyondTheHostOrTheProviderIsRefused(t *testing.T) {
	env := map[string]string{"AUXILIA_LOCAL_MAX_MEMORY_MB": "lots", "AUXILIA_LOCAL_MAX_DISK_MB": "2097152",
		"AUXILIA_LOCAL_MAX_CPU": "0", "AUXILIA_LOCAL_MAX_PROCESSES": "12.5"}
	_, err := provider.ReadOperatorSettings(func(k string) string { return env[k] }, Kind{})
	require.Error(t, err)
	for _, want := range []string{
		`AUXILIA_LOCAL_MAX_MEMORY_MB must be a whole number from 64 to 65,536, not "lots"`,
		`AUXILIA_LOCAL_MAX_DISK_MB must be a whole number from 64 to 1,048,576, not "2097152"`,
		`AUXILIA_LOCAL_MAX_CPU must be a number from 0.01 to 64, not "0"`,
		`AUXILIA_LOCAL_MAX_PROCESSES must be a whole number from 8 to 4,096, not "12.5"`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	env["AUXILIA_LOCAL_MAX_CPU"] = "NaN"
	_, err = provider.ReadOperatorSettings(func(k string) string { return env[k] }, Kind{})
	assert.ErrorContains(t, err, `AUXILIA_LOCAL_MAX_CPU must be a number from 0.01 to 64, not "NaN"`)

	host := bubblewrap.Host{MemoryMB: 2048, DiskMB: 10000, CPU: 2, Processes: 1000}
	_, err = ceilingsOn(provider.OperatorValues{"AUXILIA_LOCAL_MAX_MEMORY_MB": "4096", "AUXILIA_LOCAL_MAX_DISK_MB": "10000",
		"AUXILIA_LOCAL_MAX_CPU": "2.5", "AUXILIA_LOCAL_MAX_PROCESSES": "1001"}, host)
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		"AUXILIA_LOCAL_MAX_MEMORY_MB must be at most 2,048, the MiB of memory this host gives the server, not 4096",
		"AUXILIA_LOCAL_MAX_CPU must be at most 2, the CPUs this server may run on, not 2.5",
		"AUXILIA_LOCAL_MAX_PROCESSES must be at most 1,000, the processes this host makes, not 1001",
	}, "\n"), err.Error(), "all of what the host has may be given, not more")
}

func TestASandboxSavedAboveALoweredCeilingGetsNoInstance(t *testing.T) {
	c := newClient(t, func(cfg *Config) { cfg.Resources.MemoryMB = 1024 })
	inst := c.create(t)
	ctx := context.Background()

	// The operator lowers the memory ceiling under what the sandbox asks for.
	opened, err := Kind{DataDir: c.dataDir, Ceilings: Ceilings{MemoryMB: 512}}.Open(provider.Settings{Config: &c.config})
	require.NoError(t, err)
	lowered := opened.(*client)
	const why = "resources.memory_mb must be at most 512 MiB on this server (AUXILIA_LOCAL_MAX_MEMORY_MB), " +
		"lower than when the sandbox was saved: lower it in the sandbox's settings"
	for op, err := range map[string]error{
		"probe":     lowered.Probe(ctx),
		"create":    second(lowered.Create(ctx, provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "other"})),
		"reconnect": second(lowered.Reconnect(ctx, inst)),
		"execute":   second(lowered.Execute(ctx, inst, provider.ExecRequest{Command: "echo hi"})),
	} {
		require.ErrorIs(t, err, provider.ErrInvalidConfig, op)
		assert.ErrorContains(t, err, why, op)
	}
	assert.ElementsMatch(t, []string{inst.ID, inst.ID + ".json", inst.ID + ".ext4"}, c.instanceFiles(t), "nothing more was made")
	require.NoError(t, lowered.Destroy(ctx, inst), "what it has can still be destroyed")
	assert.Empty(t, c.instanceFiles(t))
}

// second is the error of a call that returns a value too.
func second[T any](_ T, err error) error { return err }
