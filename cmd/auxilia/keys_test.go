package main_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// post sends a JSON body with a token and returns the status and decoded answer.
func post(t *testing.T, method, url, tok string, body any) (int, map[string]any) {
	t.Helper()
	js, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(method, url, bytes.NewReader(js))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func TestEmbeddedDefaultGeneratesAPrivateKey(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, "AUXILIA_DATA_DIR="+data, "DATABASE_URL=", "AUXILIA_SECRET_KEYS=", "AUXILIA_BOOTSTRAP_TOKEN=aux_AdminToken0123456789abcdefghijklmnopqrstuvw")
	info, err := os.Stat(filepath.Join(data, "secret.key"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	assert.Contains(t, srv.logs(), "generated a secret key in the data folder")
	srv.stop(t)
	assert.NotContains(t, startServer(t, "AUXILIA_DATA_DIR="+data, "DATABASE_URL=", "AUXILIA_SECRET_KEYS=").logs(),
		"generated a secret key", "the key is reused")
}

// Rotation: secrets sealed under key A are re-encrypted under key B by
// `auxilia keys rotate`, after which A can be dropped.
func TestKeyRotation(t *testing.T) {
	keyA := strings.TrimSpace(cli(t, nil, "keys", "generate"))
	keyB := strings.TrimSpace(cli(t, nil, "keys", "generate"))
	noLeak(keyA, keyB)
	base := []string{"DATABASE_URL=" + storetest.NewEmptyPostgresDatabase(t), "AUXILIA_DATA_DIR=" + t.TempDir(),
		"AUXILIA_BOOTSTRAP_TOKEN=aux_AdminToken0123456789abcdefghijklmnopqrstuvw"}
	with := func(keys string) []string { return append(append([]string{}, base...), "AUXILIA_SECRET_KEYS="+keys) }

	srv := startServer(t, with(keyA)...)
	status, sb := post(t, "POST", srv.URL+"/api/v1/sandboxes", "aux_AdminToken0123456789abcdefghijklmnopqrstuvw",
		map[string]any{"name": "dt", "provider": "daytona", "url": "http://127.0.0.1:1/api", "secret": "dtn_secret_value_0001"})
	require.Equal(t, 201, status)
	id := sb["id"].(string)
	// An instance whose provider state (execd endpoint and headers) is sealed too.
	fake := opensandboxtest.New(t, opensandboxtest.Options{})
	agent := bindAs(t, srv, "aux_AdminToken0123456789abcdefghijklmnopqrstuvw", map[string]any{"name": "os", "provider": "opensandbox", "url": fake.URL})
	status, run := post(t, "POST", srv.URL+"/api/v1/agents/"+agent+"/threads/t/runs", "aux_AdminToken0123456789abcdefghijklmnopqrstuvw", nil)
	require.Equal(t, 201, status, "%v", run)
	srv.stop(t)

	assert.Contains(t, cli(t, with(keyB+","+keyA), "keys", "rotate"), "re-encrypted 1 secrets and 1 instance states")
	assert.Contains(t, cli(t, with(keyB+","+keyA), "keys", "rotate"), "re-encrypted 0 secrets and 0 instance states", "a second rotation has nothing to do")

	srv = startServer(t, with(keyB)...)
	// A probe of another path on the same host opens the stored secret: it fails on the network, not on decryption.
	status, res := post(t, "POST", srv.URL+"/api/v1/sandboxes/"+id+"/probe", "aux_AdminToken0123456789abcdefghijklmnopqrstuvw",
		map[string]any{"url": "http://127.0.0.1:1/v2"})
	require.Equal(t, 200, status)
	assert.NotContains(t, res["detail"], "cannot be decrypted", "the secret opens with the new key alone")
	status, warm := post(t, "POST", srv.URL+"/api/v1/agents/"+agent+"/threads/t/runs", "aux_AdminToken0123456789abcdefghijklmnopqrstuvw", nil)
	require.Equal(t, 201, status, "%v", warm)
	assert.Equal(t, false, warm["sandbox"].(map[string]any)["created"], "the instance's sealed state opens with the new key alone")

	status, audit := get(t, srv.URL+"/api/v1/audit?resource_type=key", "aux_AdminToken0123456789abcdefghijklmnopqrstuvw")
	require.Equal(t, 200, status)
	items := audit["items"].([]any)
	require.Len(t, items, 1, "the rotation is in the audit log")
	entry := items[0].(map[string]any)
	assert.Equal(t, "key.rotate", entry["action"])
	assert.Equal(t, "auxilia command line", entry["actor"].(map[string]any)["token_name"])
}

// A server started without the key a secret was sealed with refuses runs on
// that sandbox with the sandbox's own problem, as its probe does: not a 500.
func TestASecretSealedWithAnotherKeyRefusesRunsClearly(t *testing.T) {
	keyA := strings.TrimSpace(cli(t, nil, "keys", "generate"))
	keyB := strings.TrimSpace(cli(t, nil, "keys", "generate"))
	noLeak(keyA, keyB)
	base := []string{"DATABASE_URL=" + storetest.NewEmptyPostgresDatabase(t), "AUXILIA_DATA_DIR=" + t.TempDir(),
		"AUXILIA_BOOTSTRAP_TOKEN=aux_AdminToken0123456789abcdefghijklmnopqrstuvw"}
	srv := startServer(t, append(base, "AUXILIA_SECRET_KEYS="+keyA)...)
	agent := bindAs(t, srv, "aux_AdminToken0123456789abcdefghijklmnopqrstuvw", map[string]any{"name": "dt", "provider": "daytona", "secret": "dtn_secret_value_0001"})
	srv.stop(t)

	srv = startServer(t, append(base, "AUXILIA_SECRET_KEYS="+keyB)...)
	status, problem := post(t, "POST", srv.URL+"/api/v1/agents/"+agent+"/threads/t/runs", "aux_AdminToken0123456789abcdefghijklmnopqrstuvw", nil)
	require.Equal(t, 409, status, "%v", problem)
	assert.Equal(t, "sandbox_unavailable", problem["reason"])
	assert.Equal(t, "config", problem["probe_reason"])
	assert.Equal(t, "Sandbox 'dt' is not available: the stored secret cannot be decrypted with this server's keys (AUXILIA_SECRET_KEYS)",
		problem["detail"])
}
