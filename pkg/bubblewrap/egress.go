package bubblewrap

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// slirpDNS is the resolver of slirp4netns's virtual network, which passes
// queries on to the host's. 10.0.2.2 on that network is the host itself.
const slirpDNS = "10.0.2.3"

// unreachable are the destinations a jail with network never reaches,
// besides the host's own addresses: the host's loopback and slirp4netns's
// way to it, private, shared and link-local ranges (cloud metadata at
// 169.254.169.254 and fd00:ec2::254 among them), "this network",
// multicast and broadcast.
var unreachable = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("224.0.0.0/4"),
	netip.MustParsePrefix("240.0.0.0/4"), // 255.255.255.255 too
	netip.MustParsePrefix("::/128"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
	netip.MustParsePrefix("ff00::/8"),
}

// egressRules is the nftables ruleset of a jail's network namespace: the
// jail may reach its own loopback, slirp4netns's resolver on port 53, and
// every other address but the unreachable ones and the host's own
// (hostAddrs). A refused packet fails at once, as an unreachable host.
func egressRules(hostAddrs []netip.Addr) string {
	var v4, v6 []string
	add := func(p netip.Prefix) {
		if p.Addr().Is4() {
			v4 = append(v4, p.String())
		} else {
			v6 = append(v6, p.String())
		}
	}
	for _, p := range unreachable {
		add(p)
	}
	var own []netip.Prefix
	for _, a := range hostAddrs {
		a = a.Unmap().WithZone("")
		covered := slices.ContainsFunc(unreachable, func(p netip.Prefix) bool { return p.Contains(a) })
		if p := netip.PrefixFrom(a, a.BitLen()); a.IsValid() && !covered && !slices.Contains(own, p) {
			own = append(own, p)
		}
	}
	slices.SortFunc(own, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
	for _, p := range own {
		add(p)
	}

	var b strings.Builder
	b.WriteString("table inet jail {\n\tchain egress {\n\t\ttype filter hook output priority filter; policy accept;\n")
	b.WriteString("\t\toifname \"lo\" accept\n")
	fmt.Fprintf(&b, "\t\tip daddr %s meta l4proto { tcp, udp } th dport 53 accept\n", slirpDNS)
	fmt.Fprintf(&b, "\t\tip daddr { %s } reject with icmpx admin-prohibited\n", strings.Join(v4, ", "))
	fmt.Fprintf(&b, "\t\tip6 daddr { %s } reject with icmpx admin-prohibited\n", strings.Join(v6, ", "))
	b.WriteString("\t}\n}\n")
	return b.String()
}
