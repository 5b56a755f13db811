// Package nettest is what tests of a sandbox's network attack it with: a
// test "internet" (a network namespace on public-looking addresses), the
// host's listeners it must never reach, and the commands that try.
package nettest

import (
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Listener is a TCP listener of the host that records what it hears.
type Listener struct {
	Port string
	got  chan string
}

// Listen listens on a free port of ip, on the host.
func Listen(t *testing.T, ip string) *Listener {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	l := &Listener{Port: port, got: make(chan string, 8)}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
			data, _ := io.ReadAll(conn)
			conn.Close()
			l.got <- string(data)
		}
	}()
	return l
}

// AssertHeardNothing fails where the listener heard anything.
func (l *Listener) AssertHeardNothing(t *testing.T) {
	t.Helper()
	select {
	case data := <-l.got:
		t.Errorf("the listener on port %s heard %q", l.Port, data)
	default:
	}
}

// AssertHeard fails unless the listener hears want in 10 seconds.
func (l *Listener) AssertHeard(t *testing.T, want string) {
	t.Helper()
	select {
	case data := <-l.got:
		assert.Equal(t, want, data)
	case <-time.After(10 * time.Second):
		t.Errorf("the listener on port %s heard nothing", l.Port)
	}
}

// SendHi is a command that sends "hi" to a TCP address (ip:port), and
// exits with the errno of a failed connection.
func SendHi(address string) string {
	host, port, _ := net.SplitHostPort(address)
	return fmt.Sprintf(`python3 -c '
import socket, sys
try:
    socket.create_connection(("%s", %s), timeout=5).sendall(b"hi")
except OSError as e:
    print(e, file=sys.stderr)
    sys.exit(e.errno or 1)
'`, host, port)
}

// Fetch is a command that prints what http://address/ answers.
func Fetch(address string) string {
	return fmt.Sprintf(`python3 -c '
import urllib.request
print(urllib.request.urlopen("http://%s/", timeout=10).read().decode())'`, address)
}

// HostAddress is one of the host's own IPv4 addresses other than
// loopback; the test is skipped where it has none.
func HostAddress(t *testing.T) string {
	t.Helper()
	ifaddrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	for _, ifaddr := range ifaddrs {
		if ipnet, ok := ifaddr.(*net.IPNet); ok {
			if a, ok := netip.AddrFromSlice(ipnet.IP); ok && a.Unmap().Is4() && !a.IsLoopback() {
				return a.Unmap().String()
			}
		}
	}
	t.Skip("the host has no IPv4 address but loopback")
	return ""
}

// Internet is a network namespace of the test's that plays the internet:
// a veth pair joins it to the host, on public-looking addresses.
type Internet struct {
	Name string
	Host netip.Addr // the host's side
	Far  netip.Addr // the namespace's side, where its servers listen
}

// NewInternet makes the namespace; the test removes it when it ends.
func NewInternet(t *testing.T) *Internet {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making a network namespace needs root")
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	id := fmt.Sprintf("%x", b)
	// 198.51.100.0/24 (TEST-NET-2) is no private range: jails may reach it.
	// A /30 of its own, so that two runs at once do not clash.
	base := 4 * (1 + int(b[0])%62)
	n := &Internet{
		Name: "bwt" + id,
		Host: netip.AddrFrom4([4]byte{198, 51, 100, byte(base + 1)}),
		Far:  netip.AddrFrom4([4]byte{198, 51, 100, byte(base + 2)}),
	}
	hostLink, farLink := "bwt"+id+"h", "bwt"+id+"f"
	ip := func(args ...string) {
		t.Helper()
		out, err := exec.Command("ip", args...).CombinedOutput()
		require.NoError(t, err, "ip %s: %s", strings.Join(args, " "), out)
	}
	ip("netns", "add", n.Name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", n.Name).Run() })
	ip("link", "add", hostLink, "type", "veth", "peer", "name", farLink, "netns", n.Name)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", hostLink).Run() })
	ip("addr", "add", n.Host.String()+"/30", "dev", hostLink)
	ip("link", "set", hostLink, "up")
	ip("-n", n.Name, "addr", "add", n.Far.String()+"/30", "dev", farLink)
	ip("-n", n.Name, "link", "set", farLink, "up")
	ip("-n", n.Name, "link", "set", "lo", "up")
	return n
}

// Another gives the namespace one more address, from TEST-NET-3, that the
// host routes to it: a second host of the internet.
func (n *Internet) Another(t *testing.T) netip.Addr {
	t.Helper()
	a := netip.AddrFrom4([4]byte{203, 0, 113, n.Far.As4()[3]})
	for _, args := range [][]string{
		{"-n", n.Name, "addr", "add", a.String() + "/32", "dev", n.Name + "f"},
		{"route", "add", a.String() + "/32", "dev", n.Name + "h"},
	} {
		out, err := exec.Command("ip", args...).CombinedOutput()
		require.NoError(t, err, "ip %s: %s", strings.Join(args, " "), out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "route", "del", a.String()+"/32").Run() })
	return a
}

// Serve answers HTTP requests on a free port of the namespace with body.
func (n *Internet) Serve(t *testing.T, body string) (address string) {
	t.Helper()
	return n.ServeOn(t, n.Far, Text(body))
}

// ServeOn answers HTTP requests on a free port of an address of the
// namespace with handler.
func (n *Internet) ServeOn(t *testing.T, at netip.Addr, handler http.Handler) (address string) {
	t.Helper()
	ln := listenInNamespace(t, "/run/netns/"+n.Name, net.JoinHostPort(at.String(), "0"))
	srv := &http.Server{Handler: handler}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// Text is a handler that answers body.
func Text(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, body) })
}

// listenInNamespace listens on address in the network namespace at path:
// the socket belongs to the namespace it was made in, whatever thread then
// uses it. The thread that made it ends with its goroutine, never to be
// reused in that namespace.
func listenInNamespace(t *testing.T, path, address string) net.Listener {
	t.Helper()
	var ln net.Listener
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		var ns *os.File
		if ns, err = os.Open(path); err != nil {
			return
		}
		defer ns.Close()
		if err = unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			return
		}
		ln, err = net.Listen("tcp", address)
	}()
	<-done
	require.NoError(t, err)
	return ln
}
