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
}

// newExecdTarget reads the endpoint answer. The endpoint has no scheme:
// proxied endpoints are served by the controller, so they share its scheme;
// a container's own port speaks plain HTTP.
func newExecdTarget(ep endpointAnswer, proxied bool, controllerScheme string) (execdTarget, error) {
	raw := strings.TrimSpace(ep.Endpoint)
	if raw == "" {
		return execdTarget{}, fmt.Errorf("the endpoint answer names no endpoint")
	}
	if !strings.Contains(raw, "://") {
		scheme := "http"
		if proxied {
			scheme = controllerScheme
		}
		raw = scheme + "://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return execdTarget{}, fmt.Errorf("the endpoint %q is not a host:port[/path]", ep.Endpoint)
	}
	u.RawQuery, u.Fragment = "", ""
	return execdTarget{BaseURL: strings.TrimSuffix(u.String(), "/"), Headers: ep.Headers, Proxied: proxied}, nil
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
