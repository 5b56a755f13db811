package daytonatest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

func TestQuotaRefusesCreateAndStart(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	first := create(t, fake)["id"].(string)
	require.NoError(t, fake.Stop(first))
	create(t, fake)
	fake.SetQuota(daytonatest.Quota{CPU: 1})

	status, _, body := call(t, "POST", fake.URL()+"/sandbox/"+first+"/start", daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusBadRequest, status)
	msg := decode(t, body)["message"].(string)
	assert.True(t, strings.HasPrefix(msg, "Total CPU limit exceeded. Maximum allowed: 1.\n"), msg)
	state, _ := fake.State(first)
	assert.Equal(t, "stopped", state, "a refused start leaves the sandbox as it was")

	status, _, body = call(t, "POST", fake.URL()+"/sandbox", daytonatest.DefaultKey, `{}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, decode(t, body)["message"], "Total CPU limit exceeded")
	assert.Len(t, fake.Sandboxes(), 2, "a refused create makes nothing")
}

func TestSuspendedOrganisationIsRefusedSandboxes(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	require.NoError(t, fake.Stop(id))
	fake.SuspendOrganization("Payment method required")
	for _, path := range []string{"/sandbox", "/sandbox/" + id + "/start"} {
		status, _, body := call(t, "POST", fake.URL()+path, daytonatest.DefaultKey, `{}`)
		assert.Equal(t, http.StatusForbidden, status, path)
		assert.Equal(t, "Organization is suspended: Payment method required", decode(t, body)["message"], path)
	}
	status, _, _ := call(t, "GET", fake.URL()+"/sandbox/"+id, daytonatest.DefaultKey, "")
	assert.Equal(t, http.StatusOK, status, "reading is still allowed")
}

func TestClosedRegionIsForbidden(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{ClosedTargets: []string{"eu"}})
	status, _, body := call(t, "POST", fake.URL()+"/sandbox", daytonatest.DefaultKey, `{"target":"eu"}`)
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, "Region eu is not available to the organization for class container", decode(t, body)["message"])
}

func TestScopedKeyIsRefusedWhatItMayNotDo(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.AddScopedKey("writer", daytonatest.PermWriteSandboxes)
	status, _, body := call(t, "GET", fake.URL()+"/api-keys/current", "writer", "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, []any{"write:sandboxes"}, decode(t, body)["permissions"])

	status, _, body = call(t, "POST", fake.URL()+"/sandbox", "writer", `{}`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	id := decode(t, body)["id"].(string)
	status, _, body = call(t, "DELETE", fake.URL()+"/sandbox/"+id, "writer", "")
	assert.Equal(t, http.StatusForbidden, status)
	assert.Equal(t, "Forbidden resource", decode(t, body)["message"])
}

func TestRecover(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	recoverIt := func() (int, map[string]any) {
		status, _, body := call(t, "POST", fake.URL()+"/sandbox/"+id+"/recover", daytonatest.DefaultKey, "")
		return status, decode(t, body)
	}

	require.NoError(t, fake.Break(id, "runner lost"))
	_, _, body := call(t, "GET", fake.URL()+"/sandbox/"+id, daytonatest.DefaultKey, "")
	assert.Equal(t, false, decode(t, body)["recoverable"])
	status, e := recoverIt()
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "Sandbox is not in a recoverable state", e["message"])

	require.NoError(t, fake.BreakRecoverable(id, "no space left on device"))
	status, sb := recoverIt()
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "started", sb["state"])
	assert.Equal(t, false, sb["recoverable"])
	assert.NotContains(t, sb, "errorReason")

	status, e = recoverIt()
	assert.Equal(t, http.StatusBadRequest, status, "only an errored sandbox is recovered")
	assert.Equal(t, "Sandbox is not in a recoverable state", e["message"])
}
