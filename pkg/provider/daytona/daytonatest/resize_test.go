package daytonatest_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

func TestResizeRefusesWhatDaytonaRefuses(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	resize := func(body string) (int, string) {
		status, _, answer := call(t, "POST", fake.URL()+"/sandbox/"+id+"/resize", daytonatest.DefaultKey, body)
		if status != http.StatusOK {
			return status, decode(t, answer)["message"].(string)
		}
		return status, ""
	}
	for body, want := range map[string]string{
		`{}`:            "No resource changes specified - sandbox is already at the desired configuration",
		`{"cpu":1}`:     "No resource changes specified - sandbox is already at the desired configuration",
		`{"cpu":0}`:     "cpu must not be less than 1",
		`{"disk":5}`:    "Disk resize can only be performed on a stopped sandbox",
		`{"cpu":5}`:     "CPU request 5 exceeds maximum allowed per sandbox (4).\nNeed higher resource limits per-sandbox? Contact us at support@daytona.io and let us know about your use case.",
		`{"memory":9}`:  "Memory request 9GB exceeds maximum allowed per sandbox (8GB).\nNeed higher resource limits per-sandbox? Contact us at support@daytona.io and let us know about your use case.",
		`{"memory":-1}`: "memory must not be less than 1",
	} {
		status, msg := resize(body)
		assert.Equal(t, http.StatusBadRequest, status, body)
		assert.Equal(t, want, msg, body)
	}

	status, _ := resize(`{"cpu":2,"memory":2}`)
	require.Equal(t, http.StatusOK, status)
	got, _ := fake.Settings(id)
	assert.Equal(t, daytonatest.Resources{CPU: 2, Memory: 2, Disk: 3}, got.Resources)
	status, msg := resize(`{"cpu":1}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "Sandbox must be in stopped state to decrease the number of CPU cores", msg)
	_, msg = resize(`{"memory":1}`)
	assert.Equal(t, "Sandbox must be in stopped state to decrease memory", msg)

	require.NoError(t, fake.Stop(id))
	status, _ = resize(`{"cpu":1,"memory":1,"disk":5}`)
	assert.Equal(t, http.StatusOK, status, "a stopped sandbox shrinks, and its disk grows")
	_, msg = resize(`{"disk":4}`)
	assert.Equal(t, "Sandbox disk size cannot be decreased", msg)
	state, _ := fake.State(id)
	assert.Equal(t, "stopped", state, "a resize ends where it began")
}

func TestResizeGoesThroughResizing(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 1})
	id := create(t, fake)["id"].(string)
	for state, _ := fake.State(id); state != "started"; state, _ = fake.State(id) {
		call(t, "GET", fake.URL()+"/sandbox/"+id, daytonatest.DefaultKey, "")
	}
	status, _, body := call(t, "POST", fake.URL()+"/sandbox/"+id+"/resize", daytonatest.DefaultKey, `{"cpu":2}`)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "resizing", decode(t, body)["state"])
	status, _, body = call(t, "POST", fake.URL()+"/sandbox/"+id+"/resize", daytonatest.DefaultKey, `{"cpu":3}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "Sandbox must be in started or stopped state to resize", decode(t, body)["message"])
}

func TestResizeWithItsFeatureOffIsAMissingRoute(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{NoResize: true})
	id := create(t, fake)["id"].(string)
	status, _, body := call(t, "POST", fake.URL()+"/sandbox/"+id+"/resize", daytonatest.DefaultKey, `{"cpu":2}`)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "Cannot POST /api/sandbox/"+id+"/resize", decode(t, body)["message"])
}
