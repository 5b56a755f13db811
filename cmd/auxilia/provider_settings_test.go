package main_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A provider's operator setting is read and checked with the server's own:
// a bad value stops the server, named with every other bad variable.
func TestABadProviderSettingIsRefused(t *testing.T) {
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=", "AUXILIA_LISTEN=127.0.0.1:0",
		"AUXILIA_LOCAL_PROVIDER=sometimes", "AUXILIA_JSON_BODY_LIMIT=lots")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the server refuses to start")
	assert.Contains(t, string(out), `AUXILIA_LOCAL_PROVIDER must be true or false, not "sometimes"`)
	assert.Contains(t, string(out), "AUXILIA_JSON_BODY_LIMIT", "every bad variable at once")
}

// The local provider's own setting switches it off: it stays in the
// catalogue, marked off with the reason.
func TestTheLocalProviderIsSwitchedOffByItsSetting(t *testing.T) {
	for value, enabled := range map[string]bool{"off": false, "no": false, "on": true, "": true} {
		srv := instance(t, "AUXILIA_LOCAL_PROVIDER="+value)
		status, catalogue := get(t, srv.URL+"/api/v1/providers", adminToken)
		require.Equal(t, 200, status)
		items := catalogue["items"].([]any)
		local := items[len(items)-1].(map[string]any)
		require.Equal(t, "local", local["name"])
		assert.Equal(t, enabled, local["enabled"], "AUXILIA_LOCAL_PROVIDER=%q", value)
		if !enabled {
			assert.Equal(t, "AUXILIA_LOCAL_PROVIDER is off", local["disabled_reason"])
		}
	}
}
