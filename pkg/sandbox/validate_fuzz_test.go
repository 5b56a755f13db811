package sandbox

import (
	"encoding/json"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
)

// FuzzValidateSpec: whatever an admin submits, validation never panics, and
// a spec it accepts is a fixed point: validated again it stays the same and
// stays valid, and its config decodes back to what it encodes. So a saved
// sandbox always reads back as it was saved.
func FuzzValidateSpec(f *testing.F) {
	f.Add("Team", "d", "opensandbox", "sandbox.internal:8083", `{"volume_mounts":["/srv/data:/data:ro"],"default_packages":["pandas==2.2.*"]}`, true)
	f.Add("Daytona", "", "daytona", "", `{"target":"eu","auto_stop_interval":0}`, true)
	f.Add("CR", "", "cloudrun", "https://gw.example.run.app", `{"gcs_bucket":"acme","timeout":3600}`, true)
	f.Add("L", "", "local", "", `{"network":true,"default_packages":["x"],"memory_mb":64}`, false)
	f.Add("", "", "x", "http://169.254.169.254", `{"timeout":"x"}`, false)
	r := &Registry{Deps: Deps{Providers: provider.NewRegistry(provider.Policy{}, nil, builtin.Kinds(builtin.Options{})...)}}
	f.Fuzz(func(t *testing.T, name, description, prov, url, config string, hasSecret bool) {
		spec, fe := r.validateSpec(auxilia.SandboxSpec{Name: name, Description: description, Provider: prov, URL: url,
			Config: json.RawMessage(config), HasSecret: hasSecret}, true)
		if len(fe) > 0 {
			return
		}
		again, fe := r.validateSpec(spec, false)
		if len(fe) > 0 {
			t.Fatalf("a valid spec fails when validated again: %v", fe)
		}
		if again.Name != spec.Name || again.URL != spec.URL || string(again.Config) != string(spec.Config) {
			t.Fatalf("validation is not a fixed point:\n%+v\n%+v", spec, again)
		}
		if !json.Valid(spec.Config) {
			t.Fatalf("the normalised config is not JSON: %s", spec.Config)
		}
	})
}
