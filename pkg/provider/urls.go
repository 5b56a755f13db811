package provider

import (
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
)

// metadataHosts are cloud metadata services: never a sandbox provider, always
// a way to steal a host's credentials, so refused whatever the policy.
var metadataHosts = map[string]bool{
	"metadata.google.internal": true,
	"metadata":                 true,
	"metadata.goog":            true,
}

var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

// numericHost matches hosts that some resolvers read as IPv4 addresses in
// other notations (2852039166, 0xa9fea9fe, 0251.0376.0251.0376, 169.254.43518).
var numericHost = regexp.MustCompile(`^(?i)[0-9a-fx.]+$`)

// NormalizeURL checks a sandbox's url against the field's rules and the
// policy, without resolving any name, and returns it as a full URL
// ("host:port" means "http://host:port"). The error reads after "url ".
func NormalizeURL(raw string, f Field, p Policy) (string, error) {
	raw = strings.TrimSpace(raw)
	switch {
	case !f.Accepted && raw != "":
		return "", fmt.Errorf("must be empty: this provider takes no url")
	case !f.Accepted:
		return "", nil
	case raw == "" && f.Default != "":
		raw = f.Default
	case raw == "" && f.Required:
		return "", fmt.Errorf("is required")
	case raw == "":
		return "", nil
	}
	if len(raw) > maxURLLength {
		return "", fmt.Errorf("must be at most %d characters", maxURLLength)
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("must be an http(s) URL or host:port")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("must use http or https, not %s", u.Scheme)
	case u.User != nil:
		return "", fmt.Errorf("must not contain a user name or password: put credentials in the secret")
	case u.Hostname() == "":
		return "", fmt.Errorf("must name a host")
	case !validHost(u.Hostname()):
		return "", fmt.Errorf("has an invalid host name %q (write an international name in its xn-- form)", Clip(u.Hostname(), 64))
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", fmt.Errorf("must not have a query or fragment")
	case u.Opaque != "":
		return "", fmt.Errorf("must be an http(s) URL or host:port")
	}
	if port := u.Port(); port != "" {
		if n := atoiOrZero(port); n < 1 || n > 65535 {
			return "", fmt.Errorf("has an invalid port %q", port)
		}
	}
	if err := CheckHost(u.Hostname(), p); err != nil {
		return "", err
	}
	u.Host = strings.TrimSuffix(strings.ToLower(u.Host), ":") // "a:" has no port
	// Every trailing slash goes, not just one: "http://a//" and "http://a"
	// name the same base, and the result must normalise to itself.
	out := strings.TrimRight(u.String(), "/")
	if len(out) > maxURLLength { // escaping can lengthen it
		return "", fmt.Errorf("must be at most %d characters", maxURLLength)
	}
	return out, nil
}

const maxURLLength = 2048

// hostName is a DNS name: dot-separated labels of letters, digits, hyphens
// (and underscores, which some internal names use), ending in an optional dot.
var hostName = regexp.MustCompile(`^(?i)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$`)

// validHost accepts an IP address or a DNS name of at most 253 characters.
func validHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	return len(h) <= 253 && hostName.MatchString(h)
}

// CheckHost refuses metadata services always, and loopback or private
// addresses under BlockPrivateURLs. Names are checked as written; their
// addresses are checked again when dialled (see HTTPClient).
func CheckHost(host string, p Policy) error {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if metadataHosts[h] {
		return fmt.Errorf("must not point at a cloud metadata service")
	}
	addr, err := netip.ParseAddr(strings.Trim(h, "[]"))
	if err != nil {
		if numericHost.MatchString(h) && !strings.Contains(h, "..") && strings.ContainsAny(h, "0123456789") && !hasLetterLabel(h) {
			return fmt.Errorf("must write an IP address in dotted decimal")
		}
		if p.BlockPrivateURLs && (h == "localhost" || strings.HasSuffix(h, ".localhost")) {
			return fmt.Errorf("must not point at a loopback or private address on this server")
		}
		return nil
	}
	return CheckAddr(addr, p)
}

// CheckAddr applies the host rules to an address and to every IPv4
// address it carries (NAT64, 6to4, Teredo, ISATAP and the older forms),
// where a translator or tunnel on the way may deliver it.
func CheckAddr(addr netip.Addr, p Policy) error {
	for _, d := range destinations(addr) {
		err := checkDestination(d.addr, p)
		if err != nil && d.via != "" {
			return fmt.Errorf("%w (%s reaches %s through %s)", err, addr, d.addr, d.via)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkDestination refuses metadata services and IPv4 link-local always,
// and under BlockPrivateURLs whatever reaches this host or its networks:
// loopback, private and shared ranges, "this network" (0.0.0.0/8 and ::,
// which reach the host itself) and the host's own addresses.
func checkDestination(addr netip.Addr, p Policy) error {
	for _, m := range metadataAddrs {
		if addr == m {
			return fmt.Errorf("must not point at a cloud metadata service")
		}
	}
	if addr.Is4() && addr.IsLinkLocalUnicast() {
		return fmt.Errorf("must not point at a link-local address (cloud metadata lives there)")
	}
	if !p.BlockPrivateURLs {
		return nil
	}
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsUnspecified() ||
		addr.IsLinkLocalMulticast() || cgnat.Contains(addr) || thisNetwork.Contains(addr) {
		return fmt.Errorf("must not point at a loopback or private address on this server")
	}
	return checkOwnAddr(addr)
}

var (
	cgnat       = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
)

// hasLetterLabel reports whether some dot-separated label is a real name
// (has a letter other than a hex digit or x), as in "a1.example".
func hasLetterLabel(h string) bool {
	for _, r := range h {
		if r >= 'g' && r <= 'z' && r != 'x' {
			return true
		}
	}
	return false
}

func atoiOrZero(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' || n > 65535 {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}
