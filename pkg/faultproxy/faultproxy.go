// Package faultproxy puts a TCP proxy that can be made to fail between the
// server and what it reaches (Postgres, a provider), in the test's own
// process: Shopify's toxiproxy, with its latency, timeouts, resets,
// bandwidth and slicing.
package faultproxy

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// Proxy forwards a local address to an upstream one until the test ends.
type Proxy struct {
	p      *toxiproxy.Proxy
	toxics []string // the faults added, by name
}

var proxies atomic.Int64

// New starts a proxy to upstream (host:port) on a free local port.
func New(t testing.TB, upstream string) *Proxy {
	t.Helper()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(server, fmt.Sprintf("proxy%d", proxies.Add(1)), "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("start the fault proxy: %v", err)
	}
	t.Cleanup(p.Stop)
	return &Proxy{p: p}
}

// Addr is the proxy's host:port, to connect to in place of the upstream.
func (p *Proxy) Addr() string { return p.p.Listen }

// Blackhole makes the proxy accept connections and pass nothing on, and
// answer nothing: a peer that never answers.
func (p *Proxy) Blackhole(t testing.TB) { p.add(t, "timeout", map[string]any{"timeout": 0}) }

// Latency delays every answer by d.
func (p *Proxy) Latency(t testing.TB, d time.Duration) {
	p.add(t, "latency", map[string]any{"latency": d.Milliseconds()})
}

// ResetPeer resets every connection as soon as it carries data.
func (p *Proxy) ResetPeer(t testing.TB) { p.add(t, "reset_peer", map[string]any{"timeout": 0}) }

// Cut closes every connection open through the proxy, as a restart or a
// firewall would; new connections are made as before.
func (p *Proxy) Cut(t testing.TB) {
	t.Helper()
	p.p.Stop()
	if err := p.p.Start(); err != nil {
		t.Fatalf("restart the fault proxy: %v", err)
	}
}

// Heal removes every fault.
func (p *Proxy) Heal(t testing.TB) {
	t.Helper()
	for _, name := range p.toxics {
		if err := p.p.Toxics.RemoveToxic(t.Context(), name); err != nil {
			t.Fatalf("remove the %s fault: %v", name, err)
		}
	}
	p.toxics = nil
}

func (p *Proxy) add(t testing.TB, kind string, attributes map[string]any) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"name": kind, "type": kind, "stream": "downstream", "attributes": attributes})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.p.Toxics.AddToxicJson(strings.NewReader(string(body))); err != nil {
		t.Fatalf("add the %s fault: %v", kind, err)
	}
	p.toxics = append(p.toxics, kind)
}
