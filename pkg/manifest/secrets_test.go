package manifest

import (
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
)

// environment is the variables a test's apply may read, and the names it read.
type environment struct {
	values map[string]string
	read   []string
}

func (e *environment) getenv(name string) string {
	e.read = append(e.read, name)
	return e.values[name]
}

// A secret_env is refused when it names one of apply's own variables (in
// any case, and even where the operator's prefix would allow it) or, when
// the operator sets a prefix, a variable outside it; a name refused is
// never read.
func TestSecretEnvNamesWhatMayBeSent(t *testing.T) {
	values := map[string]string{
		"AUXILIA_TOKEN": "aux_admin", "auxilia_token": "aux_admin", "Auxilia_Secret_Keys": "key", "AUXILIA_": "x",
		"DAYTONA_KEY": "dtn_key", "AUXILIAS_KEY": "key", "SANDBOX_SECRET_DAYTONA": "dtn_key", "sandbox_secret_daytona": "dtn_key",
	}
	for _, c := range []struct {
		name, prefix string
		fault        string // "" when the name is accepted
		read         bool   // whether apply reads the variable
	}{
		{"AUXILIA_TOKEN", "", "names AUXILIA_TOKEN, which is never sent: variables starting with AUXILIA_ are apply's and the server's own", false},
		{"auxilia_token", "", "names auxilia_token, which is never sent", false},
		{"Auxilia_Secret_Keys", "", "names Auxilia_Secret_Keys, which is never sent", false},
		{"AUXILIA_", "", "names AUXILIA_, which is never sent", false},
		{"AUXILIA_TOKEN", "AUXILIA_", "names AUXILIA_TOKEN, which is never sent", false},
		{"DAYTONA_KEY", "", "", true},
		{"AUXILIAS_KEY", "", "", true},
		{"DAYTONA_KEY", "SANDBOX_SECRET_", "names DAYTONA_KEY, which does not start with SANDBOX_SECRET_ (AUXILIA_APPLY_SECRET_PREFIX)", false},
		{"sandbox_secret_daytona", "SANDBOX_SECRET_", "names sandbox_secret_daytona, which does not start with SANDBOX_SECRET_", false},
		{"SANDBOX_SECRET_DAYTONA", "SANDBOX_SECRET_", "", true},
		{"SANDBOX_SECRET_UNSET", "SANDBOX_SECRET_", "names SANDBOX_SECRET_UNSET, which is not set", true},
	} {
		t.Run(c.name+" under "+c.prefix, func(t *testing.T) {
			env := &environment{values: values}
			f := &File{Sandboxes: []Sandbox{{Name: "Daytona", Provider: "daytona", SecretEnv: c.name}}}
			s := &state{configs: map[string]*openapi3.Schema{"daytona": {}}}
			err := check(f, s, Options{Getenv: env.getenv, SecretPrefix: c.prefix})
			if c.fault == "" {
				assert.NoError(t, err)
			} else if assert.Error(t, err) {
				assert.Contains(t, err.Error(), "sandboxes[0].secret_env: "+c.fault)
			}
			assert.Equal(t, c.read, slices.Contains(env.read, c.name), "read %v", env.read)
		})
	}
}

// The plan says where each secret goes: the file's url as the server reads
// it, the provider's default url when the file gives none, the new url when
// it moves, and the stored one when only the secret is sent; never the
// secret itself.
func TestThePlanShowsWhereEachSecretGoes(t *testing.T) {
	const key = "dtn_secret_value_0001"
	url := func(s string) *string { return &s }
	s := &state{
		sandboxes: map[string]sandboxView{
			"Moved":    {ID: "2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0001", Name: "Moved", Provider: "opensandbox", URL: "https://old.example", HasSecret: true},
			"Unkeyed":  {ID: "2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0002", Name: "Unkeyed", Provider: "opensandbox", URL: "https://kept.example"},
			"Defaults": {ID: "2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0003", Name: "Defaults", Provider: "daytona", URL: "https://daytona.example/api", HasSecret: true},
		},
		defaultURLs: map[string]string{"daytona": "https://app.daytona.io/api", "opensandbox": ""},
	}
	f := &File{Sandboxes: []Sandbox{
		{Name: "Written", Provider: "opensandbox", URL: url("sandbox.internal:8083"), SecretEnv: "KEY"},
		{Name: "Hosted", Provider: "daytona", SecretEnv: "KEY"},
		{Name: "Moved", Provider: "opensandbox", URL: url("https://new.example"), SecretEnv: "KEY"},
		{Name: "Unkeyed", Provider: "opensandbox", SecretEnv: "KEY"},
		{Name: "Defaults", Provider: "daytona", URL: url(""), SecretEnv: "KEY"},
	}}
	var lines []string
	env := &environment{values: map[string]string{"KEY": key}}
	for _, c := range plan(nil, f, s, Options{Getenv: env.getenv}) {
		lines = append(lines, c.Summary)
	}
	assert.Equal(t, []string{
		`+ sandbox "Written" (opensandbox), secret from KEY → "http://sandbox.internal:8083"`,
		`+ sandbox "Hosted" (daytona), secret from KEY → "https://app.daytona.io/api"`,
		`~ sandbox "Moved": url "https://old.example" → "https://new.example"; secret from KEY → "https://new.example"`,
		`~ sandbox "Unkeyed": secret from KEY → "https://kept.example"`,
		`~ sandbox "Defaults": url "https://daytona.example/api" → ""; secret from KEY → "https://app.daytona.io/api"`,
	}, lines)
	for _, line := range lines {
		assert.NotContains(t, line, key)
	}
}
