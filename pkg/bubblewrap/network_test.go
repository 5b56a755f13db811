package bubblewrap

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

// hostListener is a TCP listener of the host that records what it hears.
type hostListener struct {
	port string
	got  chan string
}

// listen listens on a free port of ip, on the host.
func listen(t *testing.T, ip string) *hostListener {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	l := &hostListener{port: port, got: make(chan string, 8)}
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

func (l *hostListener) assertHeardNothing(t *testing.T) {
	t.Helper()
	select {
	case data := <-l.got:
		t.Errorf("the listener on port %s heard %q", l.port, data)
	default:
	}
}

func (l *hostListener) assertHeard(t *testing.T, want string) {
	t.Helper()
	select {
	case data := <-l.got:
		assert.Equal(t, want, data)
	case <-time.After(10 * time.Second):
		t.Errorf("the listener on port %s heard nothing", l.port)
	}
}

// sendHi is a command that sends "hi" to a TCP address (ip:port), and
// exits with the errno of a failed connection.
func sendHi(address string) string {
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

// needNetwork skips a test when this host cannot give jails network: a
// server that does not run as root needs the TUN device open to it.
func needNetwork(t *testing.T) {
	t.Helper()
	if err := checkTun(os.Geteuid() == 0); err != nil {
		t.Skipf("no network for jails here: %v", err)
	}
}

// hostAddress is one of the host's own addresses other than loopback.
func hostAddress(t *testing.T) string {
	t.Helper()
	addrs, err := hostAddresses()
	require.NoError(t, err)
	for _, a := range addrs {
		if a.Is4() && !a.IsLoopback() {
			return a.String()
		}
	}
	t.Skip("the host has no IPv4 address but loopback")
	return ""
}

func TestNetworkStaysOffTheHost(t *testing.T) {
	needNetwork(t)
	hostIP := hostAddress(t)
	loopback, own := listen(t, "127.0.0.1"), listen(t, hostIP)
	j := newJail(t)
	j.Network = true

	for _, target := range []string{
		"127.0.0.1:" + loopback.port, // the jail's own loopback, not the host's
		"10.0.2.2:" + loopback.port,  // slirp4netns's way to the host's loopback
		hostIP + ":" + own.port,      // the host's own address
	} {
		_, stderr, res := run(t, j, sendHi(target))
		assert.NotEqual(t, 0, res.ExitCode, "%s is out of reach: %s", target, stderr)
	}
	loopback.assertHeardNothing(t)
	own.assertHeardNothing(t)

	for _, target := range []string{"169.254.169.254:80", "10.1.2.3:80", "192.168.1.1:80", "172.16.0.1:80", "100.64.0.1:80"} {
		start := time.Now()
		_, stderr, res := run(t, j, sendHi(target))
		assert.Equal(t, int(unix.EHOSTUNREACH), res.ExitCode, "%s is refused as unreachable: %s", target, stderr)
		assert.Less(t, time.Since(start), 4*time.Second, "%s is refused at once, not after the connection's timeout", target)
	}

	t.Run("without the filter the same command reaches the host", func(t *testing.T) {
		filter := egressFilter
		egressFilter = func([]netip.Addr, egressLists) string { return "" }
		t.Cleanup(func() { egressFilter = filter })
		_, stderr, res := run(t, j, sendHi(hostIP+":"+own.port))
		assert.Equal(t, 0, res.ExitCode, stderr)
		own.assertHeard(t, "hi")
	})
}

func TestNetworkCannotBeChangedFromInside(t *testing.T) {
	needNetwork(t)
	j := newJail(t)
	j.Network = true
	for _, command := range []string{
		"nft flush ruleset",
		"ip link set tap0 down",
		"ip route add 10.0.0.0/8 dev tap0",
		// Root of a user namespace of its own, it still has no say over
		// the jail's network namespace, which belongs to another.
		"unshare --user --map-root-user nft flush ruleset",
	} {
		_, stderr, res := run(t, j, command)
		assert.NotEqual(t, 0, res.ExitCode, command)
		assert.Contains(t, stderr, "Operation not permitted", command)
	}
	hostIP := hostAddress(t)
	own := listen(t, hostIP)
	_, _, res := run(t, j, sendHi(hostIP+":"+own.port))
	assert.NotEqual(t, 0, res.ExitCode, "the filter is still there")
	own.assertHeardNothing(t)
}

// internet is a network namespace of the test's that plays the internet:
// a veth pair joins it to the host, on public-looking addresses.
type internet struct {
	name string
	host netip.Addr // the host's side
	far  netip.Addr // the namespace's side, where its servers listen
}

// newInternet makes the namespace; the test removes it when it ends.
func newInternet(t *testing.T) *internet {
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
	n := &internet{
		name: "bwt" + id,
		host: netip.AddrFrom4([4]byte{198, 51, 100, byte(base + 1)}),
		far:  netip.AddrFrom4([4]byte{198, 51, 100, byte(base + 2)}),
	}
	hostLink, farLink := "bwt"+id+"h", "bwt"+id+"f"
	ip := func(args ...string) {
		t.Helper()
		out, err := exec.Command("ip", args...).CombinedOutput()
		require.NoError(t, err, "ip %s: %s", strings.Join(args, " "), out)
	}
	ip("netns", "add", n.name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", n.name).Run() })
	ip("link", "add", hostLink, "type", "veth", "peer", "name", farLink, "netns", n.name)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", hostLink).Run() })
	ip("addr", "add", n.host.String()+"/30", "dev", hostLink)
	ip("link", "set", hostLink, "up")
	ip("-n", n.name, "addr", "add", n.far.String()+"/30", "dev", farLink)
	ip("-n", n.name, "link", "set", farLink, "up")
	ip("-n", n.name, "link", "set", "lo", "up")
	return n
}

// another gives the namespace one more address, from TEST-NET-3, that the
// host routes to it: a second host of the internet.
func (n *internet) another(t *testing.T) netip.Addr {
	t.Helper()
	a := netip.AddrFrom4([4]byte{203, 0, 113, n.far.As4()[3]})
	for _, args := range [][]string{
		{"-n", n.name, "addr", "add", a.String() + "/32", "dev", n.name + "f"},
		{"route", "add", a.String() + "/32", "dev", n.name + "h"},
	} {
		out, err := exec.Command("ip", args...).CombinedOutput()
		require.NoError(t, err, "ip %s: %s", strings.Join(args, " "), out)
	}
	t.Cleanup(func() { _ = exec.Command("ip", "route", "del", a.String()+"/32").Run() })
	return a
}

// serve answers HTTP requests on port in the namespace with body.
func (n *internet) serve(t *testing.T, body string) (address string) {
	t.Helper()
	return n.serveOn(t, n.far, body)
}

// serveOn answers HTTP requests on an address of the namespace with body.
func (n *internet) serveOn(t *testing.T, at netip.Addr, body string) (address string) {
	t.Helper()
	ln := listenInNamespace(t, "/run/netns/"+n.name, net.JoinHostPort(at.String(), "0"))
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, body)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
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

func TestNetworkReachesTheInternet(t *testing.T) {
	needNetwork(t)
	far := newInternet(t)
	address := far.serve(t, "hello from afar")
	j := newJail(t)
	j.Network = true
	stdout, stderr, res := run(t, j, fmt.Sprintf(`python3 -c '
import urllib.request
print(urllib.request.urlopen("http://%s/", timeout=10).read().decode())'`, address))
	assert.Equal(t, 0, res.ExitCode, stderr)
	assert.Equal(t, "hello from afar\n", stdout)

	_, _, res = run(t, j, sendHi(far.host.String()+":80"))
	assert.Equal(t, int(unix.EHOSTUNREACH), res.ExitCode, "the host's side of the link is one of the host's addresses")
}

// fetch is a command that prints what http://address/ answers.
func fetch(address string) string {
	return fmt.Sprintf(`python3 -c '
import urllib.request
print(urllib.request.urlopen("http://%s/", timeout=10).read().decode())'`, address)
}

func TestEgressRulesChooseWhatTheJailReaches(t *testing.T) {
	needNetwork(t)
	far := newInternet(t)
	other := far.another(t)
	allowed, refused := far.serve(t, "allowed"), far.serveOn(t, other, "refused")
	j := newJail(t)
	j.Network = true

	stdout, stderr, res := run(t, j, fetch(refused))
	require.Equal(t, 0, res.ExitCode, "without rules both are reached: %s", stderr)
	assert.Equal(t, "refused\n", stdout)

	j.Egress = Egress{DenyByDefault: true, Allow: []string{far.far.String()}}
	stdout, stderr, res = run(t, j, fetch(allowed))
	assert.Equal(t, 0, res.ExitCode, stderr)
	assert.Equal(t, "allowed\n", stdout, "deny by default reaches what is allowed")
	_, stderr, res = run(t, j, sendHi(refused))
	assert.Equal(t, int(unix.EHOSTUNREACH), res.ExitCode, "and not another address: %s", stderr)

	j.Egress = Egress{Allow: []string{"198.51.100.0/24"}, Deny: []string{other.String() + "/32"}}
	_, stderr, res = run(t, j, sendHi(refused))
	assert.Equal(t, int(unix.EHOSTUNREACH), res.ExitCode, "allow by default refuses what is denied: %s", stderr)
	stdout, stderr, _ = run(t, j, fetch(allowed))
	assert.Equal(t, "allowed\n", stdout, stderr)
}

// dnsQuery is a command that asks the first nameserver of /etc/resolv.conf
// for example.com's address, over UDP, and prints that server and whether
// an answer to that query came back, whatever it says.
const dnsQuery = `python3 -c '
import socket
server = [l.split()[1] for l in open("/etc/resolv.conf") if l.startswith("nameserver")][0]
query = bytes.fromhex("4a4b01000001000000000000076578616d706c6503636f6d0000010001")
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
s.sendto(query, (server, 53))
print(server, s.recv(512)[:2] == query[:2])'`

func TestNetworkResolvesNamesThroughSlirp(t *testing.T) {
	needNetwork(t)
	host := exec.Command("sh", "-c", dnsQuery)
	if out, err := host.Output(); err != nil || !strings.HasSuffix(string(out), " True\n") {
		t.Skipf("the host's own resolver does not answer: %s %v", out, err)
	}
	j := newJail(t)
	j.Network = true
	stdout, stderr, _ := run(t, j, dnsQuery)
	assert.Equal(t, slirpDNS+" True\n", stdout, "the jail asks slirp4netns's resolver, which answers: %s", stderr)
}

func TestSlirpRunsAsTheJailUserConfined(t *testing.T) {
	needNetwork(t)
	j := newJail(t)
	j.Network = true
	uid, _ := j.User()
	var status string
	beforeRelease = func() { status = slirpStatus(t) }
	t.Cleanup(func() { beforeRelease = nil })
	run(t, j, "true")

	fields := map[string]string{}
	for _, line := range strings.Split(status, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	id := itoa(uid)
	assert.Equal(t, strings.Join([]string{id, id, id, id}, " "), fields["Uid"], "slirp4netns runs as the jail's user")
	assert.Equal(t, "1", fields["NoNewPrivs"])
	assert.Equal(t, "2", fields["Seccomp"], "under a seccomp filter")
	assert.Equal(t, "0000000000000400", fields["CapEff"], "with no capability but to bind low ports, in a namespace of its own")
}

// slirpStatus is /proc/PID/status of the slirp4netns the test started.
func slirpStatus(t *testing.T) string {
	self := itoa(os.Getpid())
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		comm, _ := os.ReadFile("/proc/" + d.Name() + "/comm")
		if strings.TrimSpace(string(comm)) != "slirp4netns" {
			continue
		}
		status, err := os.ReadFile("/proc/" + d.Name() + "/status")
		if err == nil && strings.Contains(string(status), "\nPPid:\t"+self+"\n") {
			return string(status)
		}
	}
	t.Error("no slirp4netns runs for the jail")
	return ""
}

func TestMissingNetworkToolsAreNamed(t *testing.T) {
	tool := slirpTool
	slirpTool = hostTool{"slirp4netns-missing", "slirp4netns", "it connects a jail with network to the internet"}
	t.Cleanup(func() { slirpTool = tool })
	j := newJail(t)
	j.Network = true
	_, err := j.Run(t.Context(), "true", time.Minute, nil, nil)
	require.Error(t, err)
	assert.Equal(t, "bubblewrap: slirp4netns-missing is not installed: it connects a jail with network to the internet (install the slirp4netns package)", err.Error())
	assert.EqualError(t, Available(t.Context(), "", true), err.Error(), "the probe says the same")

	j.Network = false
	stdout, _, _ := run(t, j, "echo offline")
	assert.Equal(t, "offline\n", stdout, "a jail without network does not need it")
}
