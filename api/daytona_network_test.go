package api_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// Daytona's cloud refuses a sandbox's own network settings in an
// organisation whose tier limits egress, which an API key cannot read
// beforehand (the organisation's record is for its members' logins): the
// run start that creates the instance answers a 422 on config.network, in
// Daytona's words, and a sandbox without network settings runs.
func TestDaytonasTierRefusalOfNetworkIsAFieldErrorAtRunStart(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		fake, err := daytonatest.New(daytonatest.Options{LimitedNetworkEgress: true})
		require.NoError(t, err)
		t.Cleanup(fake.Close)
		bound := func(name string, config map[string]any) string {
			r := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": name, "provider": "daytona",
				"url": fake.URL(), "secret": daytonatest.DefaultKey, "config": config})
			require.Equal(t, 201, r.StatusCode, "%s", r.body)
			agent := e.createAgent(name)
			r = e.send("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member,
				map[string]any{"sandbox_id": r.json(t)["id"], "tools": allAllowed})
			require.Equal(t, 200, r.StatusCode, "%s", r.body)
			return agent["id"].(string)
		}

		denied := bound("Daytona without egress", map[string]any{"network": map[string]any{"default": "deny"}})
		p := e.call("POST", "/api/v1/agents/"+denied+"/threads/t/runs", e.member, nil).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"config.network"}, fields(p))
		msg := p["errors"].([]any)[0].(map[string]any)["message"].(string)
		assert.Contains(t, msg, "Network access is restricted and cannot be overridden at the sandbox level")
		assert.Contains(t, p["detail"], "config.network")
		assert.NotContains(t, p["detail"], daytonatest.DefaultKey)
		assert.Empty(t, fake.Sandboxes(), "nothing is left at Daytona")

		open := bound("Daytona as its tier allows", map[string]any{})
		r := e.send("POST", "/api/v1/agents/"+open+"/threads/t/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
	})
}
