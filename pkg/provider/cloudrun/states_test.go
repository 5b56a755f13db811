package cloudrun

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/auxilia/sandboxes/pkg/gateway/gatewaytest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/require"
)

// gatewayCap is the gateway's GATEWAY_MAX_SANDBOXES in the states part:
// enough for the instances the part holds at once.
const gatewayCap = 2

func TestConformanceStates(t *testing.T) {
	g := gatewaytest.Start(t, gatewaytest.NewGCS(t), "GATEWAY_MAX_SANDBOXES="+strconv.Itoa(gatewayCap))
	front := gatewaytest.CountCalls(t, g.URL)
	providertest.RunStates(t, Kind{}.Describe(), open(t, front.URL, gatewaytest.Secret, withBucket), gatewayStates{g, front})
}

// gatewayStates puts sandboxes in the states Cloud Run leaves them in.
type gatewayStates struct {
	g     *gatewaytest.Gateway
	front *gatewaytest.Counter
}

// Pause is Cloud Run scaling the gateway to zero (or its idle reaper):
// the sandbox is forgotten, and what the last run persisted stays in the
// bucket for the next reconnect.
func (s gatewayStates) Pause(t *testing.T, id string) { s.g.Delete(t, id) }

// Exit is the same forgetting with nothing persisted: nothing comes back.
func (s gatewayStates) Exit(t *testing.T, id string) { s.g.Delete(t, id) }

// RefuseCreates fills the gateway up to its cap.
func (s gatewayStates) RefuseCreates(t *testing.T) providertest.Refusal {
	for range gatewayCap {
		req, _ := http.NewRequest(http.MethodPost, s.g.URL+"/sandboxes", bytes.NewReader([]byte("{}")))
		req.Header.Set("Authorization", "Bearer "+gatewaytest.Secret)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var sb struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&sb))
		resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode)
		t.Cleanup(func() { s.g.Delete(t, sb.ID) })
	}
	return providertest.Refusal{Kind: provider.ErrQuota, Words: "GATEWAY_MAX_SANDBOXES", Asked: func() int { return s.front.Of("POST /sandboxes") }}
}
