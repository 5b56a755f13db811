package gvisor_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/bubblewrap/nettest"
	"github.com/auxilia/sandboxes/pkg/gvisor"
	"github.com/auxilia/sandboxes/pkg/gvisor/gvisortest"
)

// startNetworked starts a container with network behind a router filtered
// by egress.
func startNetworked(t *testing.T, egress bubblewrap.Egress) gvisor.Container {
	t.Helper()
	s := gvisortest.RequireRuns(t)
	if os.Geteuid() != 0 {
		t.Skip("a router needs root")
	}
	r, err := bubblewrap.StartRouter(testUID, testUID, &egress)
	require.NoError(t, err)
	t.Cleanup(r.Close)
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	require.NoError(t, os.Mkdir(ws, 0o700))
	require.NoError(t, os.Chown(ws, testUID, testUID))
	c := gvisor.Container{ID: fmt.Sprintf("auxilia-test-%d-%d", os.Getpid(), time.Now().UnixNano()), Runsc: s.Runsc, Platform: s.Platform,
		State: filepath.Join(dir, "state"), Bundle: filepath.Join(dir, "bundle"), Network: true}
	system := bubblewrap.HostSystem(testUID, testUID, "/workspace")
	system.Files["/etc/resolv.conf"] = r.ResolvConf
	require.NoError(t, c.Start(context.Background(), gvisor.Spec{Root: filepath.Join(dir, "root"), System: system,
		Workspace: ws, UID: testUID, GID: testUID, MemoryMB: 1024, MaxProcesses: 512, NetNS: r.NetNS}))
	t.Cleanup(func() { assert.NoError(t, c.Delete(context.Background())) })
	return c
}

// execIn runs command in c as its user.
func execIn(t *testing.T, c gvisor.Container, command string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	res, err := c.Exec(context.Background(), testUID, testUID, command, time.Minute, &out, &errs)
	require.NoError(t, err)
	return out.String(), errs.String(), res.ExitCode
}

func TestANetworkedContainerReachesTheInternetAndNeverTheHost(t *testing.T) {
	far := nettest.NewInternet(t)
	address := far.Serve(t, "hello from afar")
	hostIP := nettest.HostAddress(t)
	loopback, own := nettest.Listen(t, "127.0.0.1"), nettest.Listen(t, hostIP)
	c := startNetworked(t, bubblewrap.Egress{})

	stdout, stderr, code := execIn(t, c, nettest.Fetch(address))
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "hello from afar\n", stdout)

	for _, target := range []string{
		"127.0.0.1:" + loopback.Port, // the container's own loopback, not the host's
		"10.0.2.2:" + loopback.Port,  // slirp4netns's way to the host's loopback
		"10.0.3.1:" + loopback.Port,  // the router
		hostIP + ":" + own.Port,      // the host's own address
		far.Host.String() + ":" + own.Port,
		"169.254.169.254:80", "10.1.2.3:80", "192.168.1.1:80", "172.16.0.1:80", "100.64.0.1:80",
	} {
		_, stderr, code := execIn(t, c, nettest.SendHi(target))
		assert.NotEqual(t, 0, code, "%s is out of reach: %s", target, stderr)
	}
	loopback.AssertHeardNothing(t)
	own.AssertHeardNothing(t)
}

// rawSend is a command that sends a TCP SYN to ip:port through a raw IP
// socket and then a packet socket, as a tenant would to get round a
// filter on connections; it prints what each attempt came to.
func rawSend(ip, port string) string {
	return fmt.Sprintf(`python3 -c '
import socket
for name, make in (("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)),
                   ("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)))):
    try:
        s = make()
        if name == "raw":
            s.sendto(b"\x30\x39" + int(%s).to_bytes(2, "big") + bytes(8) + b"\x50\x02\xff\xff" + bytes(4), ("%s", 0))
        else:
            s.bind(("eth0", 0))
            s.send(bytes(64))
        print(name, "sent")
    except OSError as e:
        print(name, e.errno)
'`, port, ip)
}

func TestRawSocketsInsideNeverReachTheHost(t *testing.T) {
	hostIP := nettest.HostAddress(t)
	own := nettest.Listen(t, hostIP)
	c := startNetworked(t, bubblewrap.Egress{})
	stdout, stderr, _ := execIn(t, c, rawSend(hostIP, own.Port))
	// gVisor gives an unprivileged user neither (EPERM); were it to send,
	// the router would refuse what it sent as it does root's with the
	// host's kernel (bubblewrap's TestARouterKeepsEvenRootBehindItOffTheHost).
	assert.Equal(t, "raw 1\npacket 1\n", stdout, stderr)
	own.AssertHeardNothing(t)
}

func TestEgressRulesChooseWhatTheContainerReaches(t *testing.T) {
	far := nettest.NewInternet(t)
	other := far.Another(t)
	allowed, refused := far.Serve(t, "allowed"), far.ServeOn(t, other, nettest.Text("refused"))

	c := startNetworked(t, bubblewrap.Egress{DenyByDefault: true, Allow: []string{far.Far.String()}})
	stdout, stderr, code := execIn(t, c, nettest.Fetch(allowed))
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "allowed\n", stdout, "deny by default reaches what is allowed")
	_, stderr, code = execIn(t, c, nettest.SendHi(refused))
	assert.NotEqual(t, 0, code, "and not another address: %s", stderr)

	c = startNetworked(t, bubblewrap.Egress{Allow: []string{"198.51.100.0/24"}, Deny: []string{other.String() + "/32"}})
	_, stderr, code = execIn(t, c, nettest.SendHi(refused))
	assert.NotEqual(t, 0, code, "allow by default refuses what is denied: %s", stderr)
	stdout, stderr, _ = execIn(t, c, nettest.Fetch(allowed))
	assert.Equal(t, "allowed\n", stdout, stderr)
}
