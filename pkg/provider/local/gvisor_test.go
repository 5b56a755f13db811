package local

import (
	"context"
	"errors"
	"testing"

	"github.com/auxilia/sandboxes/pkg/gvisor"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The isolations a server may offer.
var (
	gvisorWorks   = Isolation{GVisor: gvisor.Status{Runsc: "/usr/bin/runsc", Platform: gvisor.Ptrace}}
	gvisorMissing = Isolation{GVisor: gvisor.Status{Platform: gvisor.Ptrace, Err: errors.New("runsc is not installed (runsc not found)")}}
)

func TestTheIsolationSettingsAreChecked(t *testing.T) {
	env := map[string]string{"AUXILIA_LOCAL_ISOLATION": "vm", "AUXILIA_LOCAL_GVISOR_PLATFORM": "qemu"}
	_, err := provider.ReadOperatorSettings(func(k string) string { return env[k] }, Kind{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `AUXILIA_LOCAL_ISOLATION must be any, bubblewrap or gvisor, not "vm"`)
	assert.Contains(t, err.Error(), `AUXILIA_LOCAL_GVISOR_PLATFORM must be one of ptrace, systrap, kvm, not "qemu"`)

	env = map[string]string{"AUXILIA_LOCAL_ISOLATION": "gvisor", "AUXILIA_LOCAL_GVISOR_PLATFORM": "kvm"}
	values, err := provider.ReadOperatorSettings(func(k string) string { return env[k] }, Kind{})
	require.NoError(t, err)
	assert.Equal(t, "kvm", values.Value(gvisorPlatformSetting))
}

func TestBubblewrapAloneNeverLooksForRunsc(t *testing.T) {
	i, err := ReadIsolation(context.Background(), provider.OperatorValues{"AUXILIA_LOCAL_ISOLATION": "bubblewrap"})
	require.NoError(t, err)
	assert.Equal(t, Isolation{Only: isolationBubblewrap}, i)
	ok, why := i.offers(isolationGVisor)
	assert.False(t, ok)
	assert.Equal(t, "this server offers bubblewrap alone (AUXILIA_LOCAL_ISOLATION)", why)
}

func TestGVisorAloneWhereItCannotRunStopsTheServer(t *testing.T) {
	// kvm, where the host has no /dev/kvm, or runsc missing, or not root:
	// whichever, the server says why it does not start.
	values := provider.OperatorValues{"AUXILIA_LOCAL_ISOLATION": "gvisor", "AUXILIA_LOCAL_GVISOR_PLATFORM": "kvm"}
	i, err := ReadIsolation(context.Background(), values)
	if i.GVisor.Available() {
		t.Skip("this host runs gVisor on kvm")
	}
	require.Error(t, err)
	assert.Regexp(t, `^AUXILIA_LOCAL_ISOLATION is gvisor, but gVisor cannot run on this server: .+$`, err.Error())
	assert.Equal(t, gvisor.KVM, i.GVisor.Platform)
}

func TestTheCatalogueOffersOnlyWhatRunsHereAndSaysWhy(t *testing.T) {
	isolation := func(i Isolation) map[string]any {
		return provider.Schema(Kind{Isolation: i})["properties"].(map[string]any)["isolation"].(map[string]any)
	}
	reference := isolation(Isolation{})
	assert.Equal(t, []string{"bubblewrap", "gvisor"}, reference["enum"], "the API's reference, of no server, lists both")
	assert.NotContains(t, reference["description"], "On this server")

	works := isolation(gvisorWorks)
	assert.Equal(t, []string{"bubblewrap", "gvisor"}, works["enum"])
	assert.Equal(t, "bubblewrap", works["default"])
	assert.Contains(t, works["description"], "gVisor's kernel in user space")
	assert.NotContains(t, works["description"], "On this server")

	missing := isolation(gvisorMissing)
	assert.Equal(t, []string{"bubblewrap"}, missing["enum"])
	assert.Contains(t, missing["description"], "On this server, gvisor is not offered: gVisor cannot run on this server: runsc is not installed (runsc not found).")

	only := gvisorWorks
	only.Only = isolationGVisor
	alone := isolation(only)
	assert.Equal(t, []string{"gvisor"}, alone["enum"])
	assert.Equal(t, "gvisor", alone["default"], "a new sandbox gets the only choice")
}

func TestASaveAskingForWhatIsNotOfferedIsRefusedOnTheField(t *testing.T) {
	save := func(i Isolation, isolation string) []provider.FieldError {
		k := Kind{Isolation: i}
		cfg := k.NewConfig().(*Config)
		cfg.Isolation = isolation
		return provider.ValidateConfig(k, cfg, provider.Policy{})
	}
	assert.Empty(t, save(gvisorWorks, "gvisor"))
	assert.Empty(t, save(gvisorMissing, "bubblewrap"))
	assert.Equal(t, []provider.FieldError{{Field: "isolation",
		Message: "gVisor cannot run on this server: runsc is not installed (runsc not found)"}}, save(gvisorMissing, "gvisor"))
	only := gvisorWorks
	only.Only = isolationGVisor
	assert.Equal(t, []provider.FieldError{{Field: "isolation",
		Message: "this server runs local sandboxes under gVisor alone (AUXILIA_LOCAL_ISOLATION)"}}, save(only, "bubblewrap"))
	bad := save(gvisorWorks, "kata")
	require.Len(t, bad, 1)
	assert.Equal(t, "isolation", bad[0].Field)
}

func TestASandboxSavedWithAnIsolationNoLongerOfferedGetsNoInstance(t *testing.T) {
	cfg := (Kind{Isolation: gvisorMissing}).NewConfig().(*Config)
	cfg.Isolation = isolationGVisor
	err := cfg.refused("create")
	require.Error(t, err)
	assert.True(t, errors.Is(err, provider.ErrInvalidConfig), err)
	assert.Contains(t, err.Error(), "isolation gvisor: gVisor cannot run on this server: runsc is not installed")
	cfg.Isolation = isolationBubblewrap
	assert.NoError(t, cfg.refused("create"))
}

func TestAGVisorSandboxMayHaveANetworkAndDefaultPackages(t *testing.T) {
	k := Kind{Isolation: gvisorWorks}
	cfg := k.NewConfig().(*Config)
	cfg.Isolation = isolationGVisor
	assert.Empty(t, provider.ValidateConfig(k, cfg, provider.Policy{}), "offline, as a new sandbox is")
	cfg.Network = provider.AllowNetwork()
	cfg.Network.Deny = []string{"198.51.100.7"}
	cfg.DefaultPackages = []string{"tiny"}
	assert.Empty(t, provider.ValidateConfig(k, cfg, provider.Policy{}), "with network, rules and packages")
	assert.NoError(t, cfg.refused("create"))
}
