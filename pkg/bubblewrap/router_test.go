package bubblewrap

import (
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/nettest"
)

// startRouter starts a router filtered by egress, for the test's user.
func startRouter(t *testing.T, egress Egress) *Router {
	t.Helper()
	needNetwork(t)
	if os.Geteuid() != 0 {
		t.Skip("a router needs root")
	}
	uid, gid := Jail{}.User()
	r, err := StartRouter(uid, gid, &egress)
	require.NoError(t, err)
	t.Cleanup(r.Close)
	return r
}

// asRootBehind runs command as root with the host's own kernel in the
// router's instance namespace: the worst a tenant could do there, were
// it out of gVisor's kernel, holding every capability over the namespace.
func asRootBehind(t *testing.T, r *Router, command string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("nsenter", "--net="+r.NetNS, "--", "sh", "-c", command)
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return out.String(), errs.String(), exit.ExitCode()
	}
	require.NoError(t, err)
	return out.String(), errs.String(), 0
}

// udpListener records the first datagram to a free port of ip.
func udpListener(t *testing.T, ip string) (port string, heard func() bool) {
	t.Helper()
	conn, err := net.ListenPacket("udp", net.JoinHostPort(ip, "0"))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	_, port, _ = net.SplitHostPort(conn.LocalAddr().String())
	return port, func() bool {
		_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, _, err := conn.ReadFrom(make([]byte, 64))
		return err == nil
	}
}

// rawUDP is a command that sends a datagram to ip:port through a raw IP
// socket, the header its own (IP_HDRINCL), from a forged source.
func rawUDP(ip, port string) string {
	return `python3 -c '
import socket, struct
dst, port = "` + ip + `", ` + port + `
payload = b"hi"
udp = struct.pack("!HHHH", 4242, port, 8 + len(payload), 0) + payload
hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, socket.inet_aton("198.18.0.1"), socket.inet_aton(dst))
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
s.sendto(hdr + udp, (dst, 0))
print("sent")'`
}

func TestARouterKeepsEvenRootBehindItOffTheHost(t *testing.T) {
	hostIP := nettest.HostAddress(t)
	loopback, own := nettest.Listen(t, "127.0.0.1"), nettest.Listen(t, hostIP)
	udpPort, heardUDP := udpListener(t, hostIP)
	r := startRouter(t, Egress{})

	for _, target := range []string{
		"10.0.2.2:" + loopback.Port, // slirp4netns's way to the host's loopback
		hostIP + ":" + own.Port,     // the host's own address
		routerAddress + ":" + own.Port,
		"169.254.169.254:80", "10.1.2.3:80", "192.168.1.1:80", "172.16.0.1:80", "100.64.0.1:80",
	} {
		start := time.Now()
		_, stderr, code := asRootBehind(t, r, nettest.SendHi(target))
		assert.NotEqual(t, 0, code, "%s is out of reach: %s", target, stderr)
		assert.Less(t, time.Since(start), 4*time.Second, "%s is refused at once, not after the connection's timeout", target)
	}
	// Root there may change its own namespace as it likes: the way out is
	// still the one link to the router.
	_, stderr, code := asRootBehind(t, r, "ip route replace default via "+routerAddress+" && nft flush ruleset && "+nettest.SendHi(hostIP+":"+own.Port))
	assert.NotEqual(t, 0, code, stderr)
	stdout, stderr, _ := asRootBehind(t, r, rawUDP(hostIP, udpPort))
	assert.Equal(t, "sent\n", stdout, stderr)
	assert.False(t, heardUDP(), "a raw datagram from a forged source is filtered as any other")
	loopback.AssertHeardNothing(t)
	own.AssertHeardNothing(t)

	t.Run("without the filter the same commands reach the host", func(t *testing.T) {
		filter := routerFilter
		routerFilter = func([]netip.Addr, egressLists) string {
			return "table inet router {\n\tchain nat {\n\t\ttype nat hook postrouting priority srcnat; policy accept;\n\t\toifname \"tap0\" masquerade\n\t}\n}\n"
		}
		t.Cleanup(func() { routerFilter = filter })
		open := startRouter(t, Egress{})
		_, stderr, code := asRootBehind(t, open, nettest.SendHi(hostIP+":"+own.Port))
		assert.Equal(t, 0, code, stderr)
		own.AssertHeard(t, "hi")
		stdout, stderr, _ := asRootBehind(t, open, rawUDP(hostIP, udpPort))
		assert.Equal(t, "sent\n", stdout, stderr)
		assert.True(t, heardUDP(), "the raw datagram arrives")
	})
}

func TestARouterAppliesTheEgressRules(t *testing.T) {
	far := nettest.NewInternet(t)
	other := far.Another(t)
	allowed, refused := far.Serve(t, "allowed"), far.ServeOn(t, other, nettest.Text("refused"))

	r := startRouter(t, Egress{DenyByDefault: true, Allow: []string{far.Far.String()}})
	stdout, stderr, code := asRootBehind(t, r, nettest.Fetch(allowed))
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "allowed\n", stdout, "deny by default reaches what is allowed")
	_, stderr, code = asRootBehind(t, r, nettest.SendHi(refused))
	assert.NotEqual(t, 0, code, "and not another address: %s", stderr)

	r = startRouter(t, Egress{Allow: []string{"198.51.100.0/24"}, Deny: []string{other.String() + "/32"}})
	_, stderr, code = asRootBehind(t, r, nettest.SendHi(refused))
	assert.NotEqual(t, 0, code, "allow by default refuses what is denied: %s", stderr)
	stdout, stderr, _ = asRootBehind(t, r, nettest.Fetch(allowed))
	assert.Equal(t, "allowed\n", stdout, stderr)
}
