package provider

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// keptPerHost is how many idle connections to one provider host the
// transport keeps for the calls that come next: as many as a burst of run
// starts opens at once (a thousand threads starting together each
// reconnect their instance). Keeping fewer, the end of every burst closes
// the rest and the next burst dials them all again, a TCP handshake (and,
// on most providers, a TLS one) per call, on both sides. An idle
// connection costs a socket and a few kilobytes, and is closed after
// IdleConnTimeout.
const keptPerHost = 1024

// keptInAll bounds the idle connections kept to all hosts together: a
// burst's to its provider, and a few to each sandbox's daemon.
const keptInAll = 4 * keptPerHost

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
		MaxIdleConns:          keptInAll,
		MaxIdleConnsPerHost:   keptPerHost,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		Proxy:                 nil, // never send sandbox traffic through an environment proxy
	}
}
