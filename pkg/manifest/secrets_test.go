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
