package opensandbox

import (
	"context"
	"net/http"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// egressPort is where the egress sidecar serves its policy API
// (components/egress/pkg/constants/configuration.go, DefaultEgressServerAddr).
const egressPort = 18080

// egressAuthHeader carries the sidecar's token
// (server/opensandbox_server/services/constants.py).
const egressAuthHeader = "OPENSANDBOX-EGRESS-AUTH"

// policyStatus is the sidecar's answer to a policy change
// (components/egress/policy_server.go, policyStatusResponse).
type policyStatus struct {
	Status string `json:"status"`
	Mode   string `json:"mode"`
}

// UpdateNetwork replaces the egress policy of a running instance with the
// config's. The instance's egress sidecar is reached at the endpoint the
// server names for its port 18080, with the headers it names there
// (OPENSANDBOX-EGRESS-AUTH: server/opensandbox_server/services/docker/
// networking.py, _attach_egress_auth_headers). POST /policy replaces the
// whole policy at once, its default action included (policy_server.go,
// handlePolicy and handlePost); PATCH only merges rules into it and DELETE
// only removes targets, so neither can say "exactly these rules".
// An instance created with an open network has no sidecar: the server
// starts one only with a networkPolicy (services/docker/docker_service.py).
func (c *client) UpdateNetwork(ctx context.Context, inst provider.Instance) error {
	t, err := target(inst, "update network")
	if err != nil {
		return err
	}
	if !t.Egress {
		return failure(provider.ErrUnsupported, "update network",
			"instance %s has no egress sidecar to take rules: it was created with an open network (or before this server recorded its sidecar)", inst.ID)
	}
	sidecar, err := c.endpointOf(ctx, inst.ID, egressPort)
	if err != nil {
		return err
	}
	if sidecar.Proxied {
		// The proxied endpoint names no token (networking.py resolves it
		// with include_egress_auth_headers=False), and the proxy adds none
		// but passes the caller's (api/proxy.py, _filter_proxy_headers):
		// the token is the one the direct endpoint names.
		direct, err := c.endpointVia(ctx, inst.ID, egressPort, false)
		if err != nil {
			return err
		}
		for k, v := range direct.Headers {
			if strings.EqualFold(k, egressAuthHeader) {
				sidecar.Headers = map[string]string{egressAuthHeader: v}
			}
		}
	}
	policy := c.cfg.networkPolicy()
	if policy == nil { // open again: the sidecar stays, allowing everything
		policy = &networkPolicy{DefaultAction: provider.EgressAllow, Egress: []networkRule{}}
	}
	r := request{Call: provider.Call{Op: "update network", Method: "POST", URL: sidecar.BaseURL + "/policy",
		Header: make(http.Header, len(sidecar.Headers)+1)}, api: c.execdCaller}
	for k, v := range sidecar.Headers {
		r.Header.Set(k, v)
	}
	if sidecar.Proxied && c.apiKey != "" {
		r.Header.Set(apiKeyHeader, c.apiKey) // the proxy strips it before the sidecar
	}
	r.Body, r.ContentType = jsonBody(policy)
	var answer policyStatus
	if err := c.do(ctx, r, &answer); err != nil {
		return err
	}
	if answer.Status != "ok" {
		return failure(provider.ErrFailed, "update network", "the egress sidecar answered status %q", answer.Status)
	}
	return nil
}

var _ provider.NetworkUpdater = (*client)(nil)
