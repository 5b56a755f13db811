package api_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spaFixture is the catalogue the SPA's tests render.
const spaFixture = "../frontend/src/test/providers.fixture.json"

var updateFixtures = flag.Bool("update", false, "rewrite the SPA's fixtures (providers, tools) from the server's answers")

// Each provider says in the catalogue what it is, can do and needs: an icon
// an <img> shows, its place, its capabilities, its shell, its operator settings, and
// which of its config keys are the ones every provider shares.
func TestTheCatalogueSaysWhatEachProviderIs(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		items := e.call("GET", "/api/v1/providers", e.member, nil).json(t)["items"].([]any)
		byName := map[string]map[string]any{}
		for i, it := range items {
			p := it.(map[string]any)
			byName[p["name"].(string)] = p
			assert.True(t, strings.HasPrefix(p["icon"].(string), "data:image/svg+xml;base64,"), "%s's icon", p["name"])
			if i > 0 {
				assert.Greater(t, p["order"], items[i-1].(map[string]any)["order"], "listed by order")
			}
			assert.Equal(t, []any{"default_packages", "timeout", "network", "resources", "idle_minutes", "keep_files", "max_kept_days", "pool"}, p["config_schema"].(map[string]any)["x-common"])
		}
		assert.Equal(t, []any{"keep_alive", "find_created", "volume_mounts", "network_switch", "pause_resume", "snapshot_restore", "egress_rules", "resources", "terminal", "interrupt"}, byName["opensandbox"]["capabilities"])
		assert.Equal(t, []any{"keep_alive", "persist", "network_switch", "pause_resume", "snapshot_restore", "egress_rules", "resources", "terminal", "interrupt"}, byName["cloudrun"]["capabilities"])
		assert.Equal(t, []any{"keep_alive", "find_created", "network_switch", "pause_resume", "snapshot_restore", "egress_rules", "resources", "terminal", "interrupt"}, byName["daytona"]["capabilities"])
		assert.Equal(t, []any{"find_created", "network_switch", "pause_resume", "snapshot_restore", "egress_rules", "resources", "terminal", "interrupt"}, byName["local"]["capabilities"])
		assert.Equal(t, "bash, or sh where the image has no bash", byName["opensandbox"]["shell"])
		assert.Equal(t, "bash, or sh where the image has no bash", byName["daytona"]["shell"])
		assert.Equal(t, []any{}, byName["daytona"]["operator_settings"])
		local := byName["local"]["operator_settings"].([]any)
		assert.Equal(t, map[string]any{"env": "AUXILIA_LOCAL_PROVIDER", "default": "on",
			"description": "`off` switches the local (bubblewrap) provider off"}, local[0])
		var fromTheHost []any
		for _, s := range local[1:6] {
			assert.Equal(t, "", s.(map[string]any)["default"], "worked out from the host")
			fromTheHost = append(fromTheHost, s.(map[string]any)["env"])
		}
		assert.Equal(t, []any{"AUXILIA_LOCAL_MAX_MEMORY_MB", "AUXILIA_LOCAL_MAX_DISK_MB", "AUXILIA_LOCAL_MAX_CPU",
			"AUXILIA_LOCAL_MAX_PROCESSES", "AUXILIA_LOCAL_JAIL_IDS"}, fromTheHost, "and the ceilings of its instances, and their users")
		assert.Equal(t, "AUXILIA_LOCAL_PACKAGE_INDEX", local[6].(map[string]any)["env"])
		assert.Equal(t, "https://pypi.org/simple/", local[6].(map[string]any)["default"], "and the index of their default packages")
		var isolation []any
		for _, s := range local[7:] {
			isolation = append(isolation, []any{s.(map[string]any)["env"], s.(map[string]any)["default"]})
		}
		assert.Equal(t, []any{[]any{"AUXILIA_LOCAL_ISOLATION", "any"}, []any{"AUXILIA_LOCAL_GVISOR_PLATFORM", "ptrace"}}, isolation,
			"and how its instances may be isolated")
	})
}

// providerNamed is the catalogue's entry for the provider called name.
func (e *env) providerNamed(name string) map[string]any {
	e.t.Helper()
	for _, it := range e.call("GET", "/api/v1/providers", e.member, nil).json(e.t)["items"].([]any) {
		if p := it.(map[string]any); p["name"] == name {
			return p
		}
	}
	e.t.Fatalf("the catalogue has no provider %s", name)
	return nil
}

// The local provider is switched off by its own setting, as any provider
// with a switch is.
func TestAProviderSwitchedOffStaysInTheCatalogueAndTakesNoSandbox(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		local := e.providerNamed("local")
		assert.Equal(t, false, local["enabled"])
		assert.Equal(t, "AUXILIA_LOCAL_PROVIDER is off", local["disabled_reason"])
		e.call("POST", "/api/v1/sandboxes", e.admin, validSandboxes["local"]).problem(t, 422, "validation_failed")
	}, func(o *options) { o.operator = provider.OperatorValues{"AUXILIA_LOCAL_PROVIDER": "0"} })
}

// The SPA's tests render what this server serves: the fixture is the
// catalogue's answer, rewritten with `go test ./api -run "Fixture|Catalogue" -update`.
func TestTheSPAsProviderFixtureIsTheCatalogue(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		r := e.call("GET", "/api/v1/providers", e.member, nil)
		require.Equal(t, 200, r.StatusCode)
		matchesFixture(t, spaFixture, r.body)
	})
}

// matchesFixture checks that a fixture the SPA's tests serve is the
// server's answer as it is, and rewrites it with -update.
func matchesFixture(t *testing.T, fixture string, answer []byte) {
	t.Helper()
	var fresh bytes.Buffer
	require.NoError(t, json.Indent(&fresh, bytes.TrimSpace(answer), "", "  "))
	fresh.WriteString("\n")
	if *updateFixtures {
		require.NoError(t, os.WriteFile(fixture, fresh.Bytes(), 0o644))
	}
	committed, err := os.ReadFile(fixture)
	require.NoError(t, err)
	assert.Equal(t, string(committed), fresh.String(),
		"the SPA's fixture %s is stale: run `go test ./api -run \"Fixture|Catalogue\" -update` and commit it", fixture)
}
