package sandbox

import (
	"net"
	"net/url"
	"strings"
)

// A stored secret goes only to the origin it was entered for: the scheme,
// host and port of the sandbox's url. An edit or a probe that moves the url
// to another origin must give the secret again, or it would send the saved
// key to a host of the editor's choosing. A change of scheme counts too,
// http to https included: the key was entered for one origin, and an
// address that answers on both is two services as far as anyone can tell.
// A new path on the same origin keeps the secret.

// secretMustBeGiven is the complaint about a moved url without its secret.
const secretMustBeGiven = "the url's host changed: give the secret again (a stored secret is only sent to the scheme, host and port it was entered for)"

// sameOrigin reports whether two normalised urls have the same scheme, host
// and port (the scheme's default port when none is written).
func sameOrigin(a, b string) bool {
	oa, okA := origin(a)
	ob, okB := origin(b)
	return okA && okB && oa == ob
}

func origin(raw string) (string, bool) {
	if raw == "" {
		return "", true // no url (a provider that takes none): nowhere to send a secret
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), port), true
}
