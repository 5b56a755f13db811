package provider

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// NewTransport returns the HTTP transport every provider client uses: it
// applies the host rules of CheckAddr to each address it actually dials, so
// a name that resolves to a metadata service (or, under BlockPrivateURLs, to
// a private address or one of this host's own) is refused even though it
// passed validation, and so is an IPv6 address that carries one.
func NewTransport(p Policy) *http.Transport {
	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			addr, err := netip.ParseAddr(host)
			if err != nil {
				return err
			}
			if err := CheckAddr(addr, p); err != nil {
				return fmt.Errorf("refused to dial %s: %w", address, err)
			}
			return nil
		},
	}
	return &http.Transport{
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		Proxy:                 nil, // never send sandbox traffic through an environment proxy
	}
}
