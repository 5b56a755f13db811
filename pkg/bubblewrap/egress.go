package bubblewrap

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// slirpDNS is the resolver of slirp4netns's virtual network, which passes
// queries on to the host's. 10.0.2.2 on that network is the host itself.
const slirpDNS = "10.0.2.3"

// The links of a Router's namespace: slirpLink to slirp4netns, routerLink
// to the instance's namespace, whose end of it is instanceLink. The two
// ends of the instance's link have routerAddress and instanceAddress, on
// a network of their own (linkNetwork), inside the wall (10.0.0.0/8).
const (
	slirpLink       = "tap0"
	routerLink      = "r0"
	instanceLink    = "eth0"
	routerAddress   = "10.0.3.1"
	instanceAddress = "10.0.3.2"
	linkNetwork     = "/30"
)

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

// Egress narrows where a jail with Network may connect, within the wall
// every such jail has (Walled). Deny beats Allow; what neither names is
// refused when DenyByDefault, let through otherwise. Each entry is an IP
// address, a network in CIDR form or a domain: a domain is resolved by the
// host's resolver when the jail starts, and stands for the addresses it
// had then (one that does not resolve stands for none).
type Egress struct {
	DenyByDefault bool
	Allow, Deny   []string
}

// Walled reports whether p reaches into what no jail ever reaches (the
// host's own addresses aside, which change): an allow rule there is moot.
func Walled(p netip.Prefix) bool {
	return slices.ContainsFunc(unreachable, func(u netip.Prefix) bool { return u.Overlaps(p) })
}

// egressLists are an Egress with its domains resolved.
type egressLists struct {
	denyByDefault bool
	allow, deny   []netip.Prefix
}

// resolve turns e's entries into networks, looking domains up with lookup.
func (e Egress) resolve(ctx context.Context, lookup func(context.Context, string) ([]netip.Addr, error)) egressLists {
	prefixes := func(entries []string) []netip.Prefix {
		var out []netip.Prefix
		for _, s := range entries {
			if a, err := netip.ParseAddr(s); err == nil {
				out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			} else if p, err := netip.ParsePrefix(s); err == nil {
				out = append(out, p.Masked())
			} else if addrs, err := lookup(ctx, s); err == nil {
				for _, a := range addrs {
					out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
				}
			}
		}
		slices.SortFunc(out, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
		return slices.Compact(out)
	}
	return egressLists{denyByDefault: e.DenyByDefault, allow: prefixes(e.Allow), deny: prefixes(e.Deny)}
}

// lookupHost resolves a domain with the host's resolver.
func lookupHost(ctx context.Context, domain string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", domain)
}

// egressRules is the nftables ruleset of a jail's network namespace: the
// jail may reach its own loopback, then egressVerdicts decide.
func egressRules(hostAddrs []netip.Addr, lists egressLists) string {
	var b strings.Builder
	b.WriteString("table inet jail {\n\tchain egress {\n\t\ttype filter hook output priority filter; policy accept;\n")
	b.WriteString("\t\toifname \"lo\" accept\n")
	egressVerdicts(&b, hostAddrs, lists)
	b.WriteString("\t}\n}\n")
	return b.String()
}

// routerRules is the nftables ruleset of a router's network namespace
// (see Router): what the instance's side (routerLink) sends on is
// decided as a jail's output is, by egressVerdicts; from slirp4netns's
// side come only the answers to it; the router itself answers nothing
// of the instance's; and what leaves for slirp4netns leaves from the
// router's address, the one slirp4netns knows.
func routerRules(hostAddrs []netip.Addr, lists egressLists) string {
	var b strings.Builder
	b.WriteString("table inet router {\n\tchain forward {\n\t\ttype filter hook forward priority filter; policy drop;\n")
	fmt.Fprintf(&b, "\t\tiifname %q oifname %q ct state established,related accept\n", slirpLink, routerLink)
	fmt.Fprintf(&b, "\t\tiifname != %q drop\n", routerLink)
	egressVerdicts(&b, hostAddrs, lists)
	fmt.Fprintf(&b, "\t\toifname %q accept\n", slirpLink)
	b.WriteString("\t}\n\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n")
	fmt.Fprintf(&b, "\t\tiifname %q reject with icmpx admin-prohibited\n", routerLink)
	b.WriteString("\t}\n\tchain nat {\n\t\ttype nat hook postrouting priority srcnat; policy accept;\n")
	fmt.Fprintf(&b, "\t\toifname %q masquerade\n", slirpLink)
	b.WriteString("\t}\n}\n")
	return b.String()
}

// closedRouterRules are those of a router that lets nothing through, nor
// answers anything of the instance's.
var closedRouterRules = "table inet router {\n\tchain forward {\n\t\ttype filter hook forward priority filter; policy drop;\n\t}\n" +
	"\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n\t\tiifname \"" + routerLink + "\" drop\n\t}\n}\n"

// egressVerdicts are the rules every way out shares: slirp4netns's
// resolver on port 53 is reached; never the unreachable addresses nor the
// host's own (hostAddrs); then the lists' deny, allow and default decide.
// A refused packet fails at once, as an unreachable host.
func egressVerdicts(b *strings.Builder, hostAddrs []netip.Addr, lists egressLists) {
	var own []netip.Prefix
	for _, a := range hostAddrs {
		a = a.Unmap().WithZone("")
		covered := slices.ContainsFunc(unreachable, func(p netip.Prefix) bool { return p.Contains(a) })
		if p := netip.PrefixFrom(a, a.BitLen()); a.IsValid() && !covered && !slices.Contains(own, p) {
			own = append(own, p)
		}
	}
	slices.SortFunc(own, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })

	fmt.Fprintf(b, "\t\tip daddr %s meta l4proto { tcp, udp } th dport 53 accept\n", slirpDNS)
	verdict(b, slices.Concat(unreachable, own), "reject with icmpx admin-prohibited")
	verdict(b, lists.deny, "reject with icmpx admin-prohibited")
	if lists.denyByDefault {
		verdict(b, lists.allow, "accept")
		b.WriteString("\t\treject with icmpx admin-prohibited\n")
	}
}

// verdict writes one rule per address family for the networks in list.
func verdict(b *strings.Builder, list []netip.Prefix, action string) {
	var v4, v6 []string
	for _, p := range list {
		if p.Addr().Is4() {
			v4 = append(v4, p.String())
		} else {
			v6 = append(v6, p.String())
		}
	}
	if len(v4) > 0 {
		fmt.Fprintf(b, "\t\tip daddr { %s } %s\n", strings.Join(v4, ", "), action)
	}
	if len(v6) > 0 {
		fmt.Fprintf(b, "\t\tip6 daddr { %s } %s\n", strings.Join(v6, ", "), action)
	}
}
