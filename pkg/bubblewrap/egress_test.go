package bubblewrap

import (
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
	rules := egressRules(hostAddrs)
	lines := strings.Split(rules, "\n")
	assert.Equal(t, []string{
		"table inet jail {",
		"\tchain egress {",
		"\t\ttype filter hook output priority filter; policy accept;",
		"\t\toifname \"lo\" accept",
		"\t\tip daddr 10.0.2.3 meta l4proto { tcp, udp } th dport 53 accept",
		"\t\tip daddr { 0.0.0.0/8, 10.0.0.0/8, 100.64.0.0/10, 127.0.0.0/8, 169.254.0.0/16, 172.16.0.0/12, 192.168.0.0/16, 224.0.0.0/4, 240.0.0.0/4, " +
			"192.0.2.4/32, 198.51.100.9/32, 203.0.113.7/32 } reject with icmpx admin-prohibited",
		"\t\tip6 daddr { ::/128, ::1/128, fc00::/7, fe80::/10, ff00::/8, 2001:db8::1/128 } reject with icmpx admin-prohibited",
		"\t}",
		"}",
		"",
	}, lines)
}
