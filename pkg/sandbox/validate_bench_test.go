package sandbox_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/sandbox"
)

// BenchmarkCheck is the validation every sandbox save runs (the registry
// before sealing the secret, and the store's BeforeSave hook again): text
// rules, url normalisation, config decoding with defaults, validation tags
// and the provider's own rules, and re-encoding the config.
func BenchmarkCheck(b *testing.B) {
	providers := provider.NewRegistry(provider.Policy{}, nil, builtin.Kinds(builtin.Options{DataDir: b.TempDir()})...)
	reg := sandbox.New(sandbox.Deps{Providers: providers})
	cases := []struct {
		name    string
		spec    auxilia.SandboxSpec
		invalid bool
	}{
		{name: "opensandbox", spec: auxilia.SandboxSpec{
			Name: "Team OpenSandbox", Description: "Python 3.12 with pandas", Provider: "opensandbox",
			URL: "sandbox.internal:8083", HasSecret: true,
			Config: []byte(`{"default_image":"python:3.12-slim","volume_mounts":["/srv/datasets:/data:ro","/srv/cache:/cache"],` +
				`"default_packages":["pandas==2.2.*","numpy>=2","matplotlib"],"timeout":900}`),
		}},
		{name: "daytona_defaults", spec: auxilia.SandboxSpec{
			Name: "Daytona", Provider: "daytona", HasSecret: true, Config: []byte(`{"target":"eu"}`),
		}},
		{name: "cloudrun", spec: auxilia.SandboxSpec{
			Name: "Cloud Run", Provider: "cloudrun", URL: "https://sandbox-gateway-abc-uc.a.run.app", HasSecret: true,
			Config: []byte(`{"gcs_bucket":"acme-sandboxes","allow_egress":true,"default_packages":["requests"]}`),
		}},
		{name: "every_field_broken", invalid: true, spec: auxilia.SandboxSpec{
			Name: "", Provider: "opensandbox", URL: "http://169.254.169.254",
			Config: []byte(`{"timeout":0,"volume_mounts":["/etc:/etc"],"default_packages":["not a requirement!"],"unknown":1}`),
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if err := reg.Check(c.spec); (err != nil) != c.invalid {
				b.Fatalf("Check = %v, want invalid=%v", err, c.invalid)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = reg.Check(c.spec)
			}
		})
	}
}
