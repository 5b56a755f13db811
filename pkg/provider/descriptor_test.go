package provider_test

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echo is a provider declared only through the contract: its descriptor,
// a config embedding the common block, and an operator switch.
type echo struct {
	name  string
	order int
	rules provider.CommonRules
	caps  provider.Capabilities // beyond Interrupt and KeepAlive
	// ceilings are the operator's, on this server.
	ceilings []provider.Ceiling
}

type echoConfig struct {
	Greeting string `json:"greeting" validate:"required,max=20" title:"Greeting" doc:"What every command is answered with."`
	provider.Common
}

func (c *echoConfig) Validate(provider.Policy) []provider.FieldError {
	if c.Greeting == "boom" {
		return []provider.FieldError{{Field: "greeting", Message: "must not explode"}}
	}
	return nil
}

func (e echo) Describe() provider.Descriptor {
	return provider.Descriptor{Name: e.name, Title: "Echo", Description: "Answers every command with its greeting.",
		Icon: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), Order: e.order, Common: e.rules, Ceilings: e.ceilings,
		Capabilities: provider.Interrupt | provider.KeepAlive | e.caps,
		Settings: []provider.OperatorSetting{
			{Env: "ECHO_PROVIDER", Default: "on", Switch: true, Description: "`off` switches echo off"},
			{Env: "ECHO_VOICE", Default: "loud", Description: "How echo speaks", Check: func(v string) error {
				if v != "loud" && v != "soft" {
					return errors.New("must be loud or soft")
				}
				return nil
			}},
		}}
}

func (echo) NewConfig() provider.Config {
	return &echoConfig{Greeting: "hello", Common: provider.DefaultCommon()}
}

func (echo) Open(provider.Settings) (provider.Client, error) {
	return nil, errors.New("echo opens nothing")
}

func TestTheCatalogueOrdersProvidersByTheirDeclaredOrderThenName(t *testing.T) {
	r := provider.NewRegistry(provider.Policy{}, nil,
		echo{name: "zeta", order: 1}, echo{name: "last", order: 9}, echo{name: "alpha", order: 1}, echo{name: "first"})
	assert.Equal(t, []string{"first", "alpha", "zeta", "last"}, r.Names())
}

func TestCapabilitiesAreServedByName(t *testing.T) {
	d := echo{}.Describe()
	assert.Equal(t, []string{"keep_alive", "interrupt"}, d.Capabilities.Names())
	assert.True(t, d.Capabilities.Has(provider.Interrupt))
	assert.False(t, d.Capabilities.Has(provider.Interrupt|provider.Terminal))
	assert.Equal(t, []string{}, provider.Capabilities(0).Names())
	assert.Len(t, provider.CapabilityNames(), 12)
}

func TestTheIconIsADataURLAnImageCannotRunScriptsFrom(t *testing.T) {
	assert.Equal(t, "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=", echo{}.Describe().IconURL())
	assert.Empty(t, provider.Descriptor{}.IconURL())
}

func TestOperatorSettingsAreCheckedAndNamed(t *testing.T) {
	env := map[string]string{"ECHO_PROVIDER": "maybe", "ECHO_VOICE": "shrill"}
	_, err := provider.ReadOperatorSettings(func(k string) string { return env[k] }, echo{name: "echo"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `ECHO_PROVIDER must be true or false, not "maybe"`)
	assert.Contains(t, err.Error(), "ECHO_VOICE must be loud or soft")

	env = map[string]string{"ECHO_PROVIDER": " Off ", "ECHO_VOICE": "soft"}
	values, err := provider.ReadOperatorSettings(func(k string) string { return env[k] }, echo{name: "echo"})
	require.NoError(t, err)
	assert.Equal(t, provider.OperatorValues{"ECHO_PROVIDER": "Off", "ECHO_VOICE": "soft"}, values)
}

func TestAProviderIsSwitchedOffByItsOwnSetting(t *testing.T) {
	on := provider.NewRegistry(provider.Policy{}, nil, echo{name: "echo"})
	assert.Empty(t, on.Disabled("echo"), "its default is on")

	off := provider.NewRegistry(provider.Policy{}, provider.OperatorValues{"ECHO_PROVIDER": "off"}, echo{name: "echo"}, echo{name: "other"})
	assert.Equal(t, "ECHO_PROVIDER is off", off.Disabled("echo"))
	_, known := off.Kind("echo")
	assert.True(t, known, "it stays in the catalogue")
}

func TestTheCommonBlockIsFlattenedIntoTheSchema(t *testing.T) {
	schema := provider.Schema(echo{name: "echo"})
	assert.Equal(t, []string{"greeting", "default_packages", "timeout", "network", "resources", "idle_minutes", "keep_files", "max_kept_days", "pool"}, schema["x-order"])
	assert.Equal(t, []string{"default_packages", "timeout", "network", "resources", "idle_minutes", "keep_files", "max_kept_days", "pool"}, schema["x-common"])
	props := schema["properties"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "integer", "minimum": 1, "maximum": provider.DefaultMaxTimeout, "default": 1800,
		"title": "Timeout (seconds)", "description": "Longest a command may run."}, props["timeout"])

	tuned := provider.Schema(echo{name: "echo", rules: provider.CommonRules{MaxTimeout: 60, TimeoutNote: "echo is quick",
		PackagesNote: "echo ignores them"}})["properties"].(map[string]any)
	assert.Equal(t, 60, tuned["timeout"].(map[string]any)["maximum"])
	assert.Equal(t, "Longest a command may run (echo is quick).", tuned["timeout"].(map[string]any)["description"])
	assert.Equal(t, "pip requirements installed into every new sandbox (echo ignores them).",
		tuned["default_packages"].(map[string]any)["description"])
}

func TestTheCommonBlockDecodesAndEncodesBesideTheProvidersOwnKeys(t *testing.T) {
	k := echo{name: "echo"}
	cfg, errs := provider.DecodeConfig(k, json.RawMessage(`{"greeting":"hi","timeout":5,"default_packages":["rich"]}`))
	require.Empty(t, errs)
	assert.Equal(t, 5*1e9, float64(cfg.CommandTimeout()))
	assert.Equal(t, []string{"rich"}, cfg.Packages())
	raw, err := provider.EncodeConfig(cfg)
	require.NoError(t, err)
	assert.JSONEq(t, `{"greeting":"hi","timeout":5,"default_packages":["rich"],
		"network":{"default":"allow","allow":[],"deny":[]},"resources":{"cpu":0,"memory_mb":0,"disk_mb":0},
		"idle_minutes":0,"keep_files":"until_expiry","max_kept_days":7,"pool":{"size":0,"max_idle_minutes":60}}`, string(raw))
}

// The pool is an object of its own: a key left out keeps its default, and
// each bad key is named by its path.
func TestThePoolDecodesKeyByKeyAndNamesItsBadKeys(t *testing.T) {
	k := echo{name: "echo"}
	cfg, errs := provider.DecodeConfig(k, json.RawMessage(`{"pool":{"size":3}}`))
	require.Empty(t, errs)
	assert.Equal(t, provider.Pool{Size: 3, MaxIdleMinutes: 60}, cfg.WarmPool())

	_, errs = provider.DecodeConfig(k, json.RawMessage(`{"pool":{"size":"many","color":"red"}}`))
	assert.ElementsMatch(t, []provider.FieldError{
		{Field: "pool.color", Message: "is not a setting of Echo sandboxes"},
		{Field: "pool.size", Message: "must be a whole number"},
	}, errs)
	_, errs = provider.DecodeConfig(k, json.RawMessage(`{"pool":5}`))
	assert.Equal(t, []provider.FieldError{{Field: "pool", Message: "must be an object"}}, errs)

	cfg, errs = provider.DecodeConfig(k, json.RawMessage(`{"pool":{"size":-1,"max_idle_minutes":0}}`))
	require.Empty(t, errs)
	got := map[string]bool{}
	for _, fe := range provider.ValidateConfig(k, cfg, provider.Policy{}) {
		got[fe.Field] = true
	}
	assert.Equal(t, map[string]bool{"pool.size": true, "pool.max_idle_minutes": true}, got)

	props := provider.Schema(k)["properties"].(map[string]any)
	pool := props["pool"].(map[string]any)
	assert.Equal(t, "object", pool["type"])
	assert.Equal(t, []string{"size", "max_idle_minutes"}, pool["x-order"])
	assert.Equal(t, provider.Pool{Size: 0, MaxIdleMinutes: 60}, pool["default"])
}

func TestTheCommonBlockIsValidatedOnceUnderTheProvidersRules(t *testing.T) {
	k := echo{name: "echo", rules: provider.CommonRules{MaxTimeout: 60}}
	cfg, errs := provider.DecodeConfig(k, json.RawMessage(`{"greeting":"boom","timeout":61,"default_packages":["not a requirement!"]}`))
	require.Empty(t, errs)
	got := map[string]string{}
	for _, fe := range provider.ValidateConfig(k, cfg, provider.Policy{}) {
		got[fe.Field] = fe.Message
	}
	assert.Equal(t, []string{"default_packages.0", "greeting", "timeout"}, slices.Sorted(maps.Keys(got)),
		"each field named by its key in the config, once")
	assert.Equal(t, "must be at most 60", got["timeout"])
	assert.Equal(t, "must not explode", got["greeting"])

	cfg, _ = provider.DecodeConfig(k, json.RawMessage(`{"timeout":0}`))
	assert.Equal(t, []provider.FieldError{{Field: "timeout", Message: "must be at least 1"}}, provider.ValidateConfig(k, cfg, provider.Policy{}))

	cfg, _ = provider.DecodeConfig(echo{name: "echo"}, json.RawMessage(`{"timeout":86400}`))
	assert.Empty(t, provider.ValidateConfig(echo{name: "echo"}, cfg, provider.Policy{}), "a day by default")
	cfg, _ = provider.DecodeConfig(echo{name: "echo"}, json.RawMessage(`{"timeout":86401}`))
	assert.Equal(t, []provider.FieldError{{Field: "timeout", Message: "must be at most 86400"}},
		provider.ValidateConfig(echo{name: "echo"}, cfg, provider.Policy{}))
}
