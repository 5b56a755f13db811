package bubblewrap

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEgressRules(t *testing.T) {
	hostAddrs := []netip.Addr{
		netip.MustParseAddr("127.0.0.1"),        // in 127.0.0.0/8 already
		netip.MustParseAddr("203.0.113.7"),      // a public address of the host
		netip.MustParseAddr("198.51.100.9"),     //
		netip.MustParseAddr("203.0.113.7"),      // twice
		netip.MustParseAddr("::ffff:192.0.2.4"), // IPv4 as IPv6
		netip.MustParseAddr("2001:db8::1"),
		netip.MustParseAddr("fe80::1%eth0"), // in fe80::/10 already
	}
	wall := []string{
		"table inet jail {",
		"\tchain egress {",
		"\t\ttype filter hook output priority filter; policy accept;",
		"\t\toifname \"lo\" accept",
		"\t\tip daddr 10.0.2.3 meta l4proto { tcp, udp } th dport 53 accept",
		"\t\tip daddr { 0.0.0.0/8, 10.0.0.0/8, 100.64.0.0/10, 127.0.0.0/8, 169.254.0.0/16, 172.16.0.0/12, 192.168.0.0/16, 224.0.0.0/4, 240.0.0.0/4, " +
			"192.0.2.4/32, 198.51.100.9/32, 203.0.113.7/32 } reject with icmpx admin-prohibited",
		"\t\tip6 daddr { ::/128, ::1/128, fc00::/7, fe80::/10, ff00::/8, 2001:db8::1/128 } reject with icmpx admin-prohibited",
	}
	end := []string{"\t}", "}", ""}
	assert.Equal(t, append(wall, end...), strings.Split(egressRules(hostAddrs, egressLists{}), "\n"), "without lists, the wall alone")

	lists := egressLists{denyByDefault: true,
		allow: []netip.Prefix{netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("2001:db8:1::/48")},
		deny:  []netip.Prefix{netip.MustParsePrefix("198.51.100.7/32")}}
	assert.Equal(t, append(append(wall,
		"\t\tip daddr { 198.51.100.7/32 } reject with icmpx admin-prohibited",
		"\t\tip daddr { 198.51.100.0/24 } accept",
		"\t\tip6 daddr { 2001:db8:1::/48 } accept",
		"\t\treject with icmpx admin-prohibited"), end...),
		strings.Split(egressRules(hostAddrs, lists), "\n"), "the wall first, then deny, allow and the default")
}

func TestEgressResolvesDomainsWhenTheJailStarts(t *testing.T) {
	lookup := func(_ context.Context, domain string) ([]netip.Addr, error) {
		if domain == "pypi.org" {
			return []netip.Addr{netip.MustParseAddr("::ffff:151.101.0.223"), netip.MustParseAddr("2a04:4e42::223")}, nil
		}
		return nil, errors.New("no such host")
	}
	lists := Egress{DenyByDefault: true, Allow: []string{"pypi.org", "198.51.100.0/24", "203.0.113.7", "gone.example"},
		Deny: []string{"198.51.100.7"}}.resolve(t.Context(), lookup)
	assert.Equal(t, egressLists{denyByDefault: true,
		allow: []netip.Prefix{netip.MustParsePrefix("151.101.0.223/32"), netip.MustParsePrefix("198.51.100.0/24"),
			netip.MustParsePrefix("203.0.113.7/32"), netip.MustParsePrefix("2a04:4e42::223/128")},
		deny: []netip.Prefix{netip.MustParsePrefix("198.51.100.7/32")}}, lists, "a name that does not resolve stands for nothing")
}

func TestWalledSaysWhatNoJailReaches(t *testing.T) {
	assert.True(t, Walled(netip.MustParsePrefix("10.1.0.0/16")))
	assert.True(t, Walled(netip.MustParsePrefix("0.0.0.0/0")), "a network that holds a private range")
	assert.True(t, Walled(netip.MustParsePrefix("169.254.169.254/32")))
	assert.False(t, Walled(netip.MustParsePrefix("198.51.100.0/24")))
	assert.False(t, Walled(netip.MustParsePrefix("2001:db8::/32")))
}

func TestRouterRules(t *testing.T) {
	lists := egressLists{denyByDefault: true, allow: []netip.Prefix{netip.MustParsePrefix("198.51.100.0/24")}}
	assert.Equal(t, []string{
		"table inet router {",
		"\tchain forward {",
		"\t\ttype filter hook forward priority filter; policy drop;",
		"\t\tiifname \"tap0\" oifname \"r0\" ct state established,related accept",
		"\t\tiifname != \"r0\" drop",
		"\t\tip daddr 10.0.2.3 meta l4proto { tcp, udp } th dport 53 accept",
		"\t\tip daddr { 0.0.0.0/8, 10.0.0.0/8, 100.64.0.0/10, 127.0.0.0/8, 169.254.0.0/16, 172.16.0.0/12, 192.168.0.0/16, 224.0.0.0/4, 240.0.0.0/4, " +
			"203.0.113.7/32 } reject with icmpx admin-prohibited",
		"\t\tip6 daddr { ::/128, ::1/128, fc00::/7, fe80::/10, ff00::/8 } reject with icmpx admin-prohibited",
		"\t\tip daddr { 198.51.100.0/24 } accept",
		"\t\treject with icmpx admin-prohibited",
		"\t\toifname \"tap0\" accept",
		"\t}",
		"\tchain input {",
		"\t\ttype filter hook input priority filter; policy accept;",
		"\t\tiifname \"r0\" reject with icmpx admin-prohibited",
		"\t}",
		"\tchain nat {",
		"\t\ttype nat hook postrouting priority srcnat; policy accept;",
		"\t\toifname \"tap0\" masquerade",
		"\t}",
		"}", "",
	}, strings.Split(routerRules([]netip.Addr{netip.MustParseAddr("203.0.113.7")}, lists), "\n"),
		"what the instance sends on is decided as a jail's output; only answers come back; the router answers nothing")
}
