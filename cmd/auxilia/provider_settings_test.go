package main_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
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

// The local provider's ceilings are read from the environment, and worked
// out from the host where unset; the catalogue gives them as maxima.
func TestTheLocalCeilingsAreReadOrWorkedOutFromTheHost(t *testing.T) {
	host, err := bubblewrap.ReadHost(t.TempDir()) // the data folders are on the same disk
	require.NoError(t, err)
	srv := instance(t, "AUXILIA_LOCAL_MAX_MEMORY_MB=512", "AUXILIA_LOCAL_MAX_CPU=0.5")
	status, catalogue := get(t, srv.URL+"/api/v1/providers", adminToken)
	require.Equal(t, 200, status)
	items := catalogue["items"].([]any)
	schema := items[len(items)-1].(map[string]any)["config_schema"].(map[string]any)["properties"].(map[string]any)
	resources := schema["resources"].(map[string]any)["properties"].(map[string]any)
	assert.Equal(t, 512.0, resources["memory_mb"].(map[string]any)["maximum"])
	assert.Equal(t, 0.5, resources["cpu"].(map[string]any)["maximum"])
	assert.Equal(t, math.Min(math.Floor(float64(host.DiskMB)/2), 1<<20), resources["disk_mb"].(map[string]any)["maximum"],
		"unset: half of the data folder's disk")
	assert.Equal(t, math.Min(math.Floor(float64(host.Processes)/2), 4096), schema["max_processes"].(map[string]any)["maximum"],
		"unset: half of the processes the host makes, at most 4096")
}

// A ceiling that is no number, or more than the host has, stops the server.
func TestABadLocalCeilingIsRefused(t *testing.T) {
	host, err := bubblewrap.ReadHost(t.TempDir())
	require.NoError(t, err)
	require.Less(t, host.CPU, 63.0, "the test machines have fewer CPUs than a local instance may be given")
	beyond := strconv.FormatFloat(host.CPU+1, 'f', -1, 64)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a server that starts is ended
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "serve")
	cmd.Env = append(os.Environ(), "AUXILIA_DATA_DIR="+t.TempDir(), "DATABASE_URL=", "AUXILIA_LISTEN=127.0.0.1:0",
		"AUXILIA_LOCAL_MAX_MEMORY_MB=lots", "AUXILIA_LOCAL_MAX_CPU="+beyond)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the server refuses to start")
	assert.Contains(t, string(out), `AUXILIA_LOCAL_MAX_MEMORY_MB must be a whole number from 64 to 65,536, not "lots"`)
	assert.Contains(t, string(out), "AUXILIA_LOCAL_MAX_CPU must be at most "+strconv.FormatFloat(host.CPU, 'f', -1, 64)+
		", the CPUs this server may run on, not "+beyond, "every bad variable at once")
}
