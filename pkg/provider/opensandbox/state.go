package opensandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// execdPort is where execd listens inside every sandbox.
const execdPort = 44772

// execdTarget is how to reach one instance's execd. It is the instance's
// State, so that a warm reconnect needs no second control-plane call; its
// headers may be credentials, which is why the core stores State encrypted.
type execdTarget struct {
	// BaseURL is execd's address with its scheme and any path prefix.
	BaseURL string `json:"base_url"`
	// Headers must go with every execd call (X-EXECD-ACCESS-TOKEN, …).
	Headers map[string]string `json:"headers,omitempty"`
	// Proxied: the controller's server proxy forwards the calls, so they
	// carry the API key too (the proxy strips it before execd).
	Proxied bool `json:"proxied,omitempty"`
	// Egress: the instance was created with a network policy, so an egress
	// sidecar runs beside it whose policy can change (egress.go).
	Egress bool `json:"egress,omitempty"`
}

// newExecdTarget reads the endpoint answer for instance id. Through the
// server proxy, execd is the controller's own route
// /sandboxes/{id}/proxy/44772, reached at the URL the controller is
// registered with: the answer's host is the server's idea of its address
// (the request's Host, or its configured eip, often without a port), which
// need not be how this server reaches it. Only the answer's headers count.
// A container's own endpoint has no scheme and speaks plain HTTP.
func newExecdTarget(ep endpointAnswer, id string, proxied bool, controller string) (execdTarget, error) {
	return newTarget(ep, id, execdPort, proxied, controller)
}

// newTarget reads the endpoint answer for port of instance id, as
// newExecdTarget does for execd's.
func newTarget(ep endpointAnswer, id string, port int, proxied bool, controller string) (execdTarget, error) {
	if proxied {
		base := fmt.Sprintf("%s/sandboxes/%s/proxy/%d", controller, url.PathEscape(id), port)
		return execdTarget{BaseURL: base, Headers: ep.Headers, Proxied: true}, nil
	}
	raw := strings.TrimSpace(ep.Endpoint)
	if raw == "" {
		return execdTarget{}, fmt.Errorf("the endpoint answer names no endpoint")
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return execdTarget{}, fmt.Errorf("the endpoint %q is not a host:port[/path]", ep.Endpoint)
	}
	u.RawQuery, u.Fragment = "", ""
	return execdTarget{BaseURL: strings.TrimSuffix(u.String(), "/"), Headers: ep.Headers}, nil
}

var errNoState = errors.New("the instance has no execd endpoint")

func (t execdTarget) encode() json.RawMessage {
	b, _ := json.Marshal(t) // strings and a map of strings always encode
	return b
}

func decodeTarget(state json.RawMessage) (execdTarget, error) {
	var t execdTarget
	if len(state) == 0 {
		return t, errNoState
	}
	if err := json.Unmarshal(state, &t); err != nil || t.BaseURL == "" {
		return t, errNoState
	}
	return t, nil
}
