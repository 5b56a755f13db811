package provider

import (
	"fmt"
	"net"
	"net/netip"
)

// destination is an address a connection may end up at: the one dialled,
// or an IPv4 address inside it that a translator or tunnel delivers to.
type destination struct {
	addr netip.Addr
	via  string // how the dialled address reaches it; "" for the address itself
}

// The IPv6 forms that carry an IPv4 address.
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")    // RFC 6052
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48")  // RFC 8215
	sixToFour      = netip.MustParsePrefix("2002::/16")       // RFC 3056
	teredo         = netip.MustParsePrefix("2001::/32")       // RFC 4380
	ipv4Compatible = netip.MustParsePrefix("::/96")           // RFC 4291, deprecated
	ipv4Translated = netip.MustParsePrefix("::ffff:0:0:0/96") // RFC 2765 (SIIT)
)

// destinations returns the address (IPv4-mapped ones as IPv4) and every
// IPv4 address it carries, so that each can be judged by the same rules.
func destinations(addr netip.Addr) []destination {
	addr = addr.Unmap()
	out := []destination{{addr: addr}}
	if !addr.Is6() {
		return out
	}
	a := addr.As16()
	add := func(v4 [4]byte, via string) {
		out = append(out, destination{netip.AddrFrom4(v4), via})
	}
	last := [4]byte(a[12:16])
	switch {
	case nat64WellKnown.Contains(addr):
		add(last, "NAT64")
	case nat64Local.Contains(addr):
		// The operator picks the prefix length (48 to 96 bits within it),
		// which the address does not tell: every reading counts.
		for _, bits := range []int{48, 56, 64, 96} {
			add(rfc6052(a, bits), "NAT64")
		}
	case sixToFour.Contains(addr):
		add([4]byte(a[2:6]), "6to4")
	case teredo.Contains(addr):
		add([4]byte(a[4:8]), "its Teredo server")
		add([4]byte{^a[12], ^a[13], ^a[14], ^a[15]}, "Teredo")
	case ipv4Translated.Contains(addr):
		add(last, "SIIT")
	case ipv4Compatible.Contains(addr) && !addr.IsUnspecified() && !addr.IsLoopback():
		add(last, "IPv4-compatible addressing")
	}
	// ISATAP puts the IPv4 address in the interface identifier of any prefix.
	if a[8]&^0x03 == 0 && a[9] == 0 && a[10] == 0x5e && a[11] == 0xfe {
		add(last, "ISATAP")
	}
	return out
}

// rfc6052 reads the IPv4 address that follows a NAT64 prefix of the given
// length, skipping bits 64 to 71, which the format keeps zero.
func rfc6052(a [16]byte, prefixBits int) [4]byte {
	var v4 [4]byte
	for i, j := prefixBits/8, 0; j < 4; i++ {
		if i != 8 {
			v4[j] = a[i]
			j++
		}
	}
	return v4
}

// checkOwnAddr refuses an address on one of this host's interfaces: it
// reaches the server itself (and whatever listens beside it) as surely as
// loopback does. Addresses are read afresh each time, as they may change.
func checkOwnAddr(addr netip.Addr) error {
	own, err := net.InterfaceAddrs()
	if err != nil {
		return fmt.Errorf("must not point at this server, and its own addresses could not be read: %v", err)
	}
	addr = addr.WithZone("")
	for _, o := range own {
		if n, ok := o.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(n.IP); ok && a.Unmap() == addr {
				return fmt.Errorf("must not point at an address of this server")
			}
		}
	}
	return nil
}
