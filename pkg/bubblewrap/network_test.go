package bubblewrap

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/nettest"
)

// needNetwork skips a test when this host cannot give jails network: a
// server that does not run as root needs the TUN device open to it.
func needNetwork(t *testing.T) {
	t.Helper()
	if err := checkTun(os.Geteuid() == 0); err != nil {
		t.Skipf("no network for jails here: %v", err)
	}
}

func TestNetworkStaysOffTheHost(t *testing.T) {
	needNetwork(t)
	hostIP := nettest.HostAddress(t)
	loopback, own := nettest.Listen(t, "127.0.0.1"), nettest.Listen(t, hostIP)
	j := newJail(t)
	j.Network = true

	for _, target := range []string{
		"127.0.0.1:" + loopback.Port, // the jail's own loopback, not the host's
		"10.0.2.2:" + loopback.Port,  // slirp4netns's way to the host's loopback
		hostIP + ":" + own.Port,      // the host's own address
	} {
		_, stderr, res := run(t, j, nettest.SendHi(target))
		assert.NotEqual(t, 0, res.ExitCode, "%s is out of reach: %s", target, stderr)
	}
	loopback.AssertHeardNothing(t)
	own.AssertHeardNothing(t)

	for _, target := range []string{"169.254.169.254:80", "10.1.2.3:80", "192.168.1.1:80", "172.16.0.1:80", "100.64.0.1:80"} {
		start := time.Now()
		_, stderr, res := run(t, j, nettest.SendHi(target))
		assert.Equal(t, int(unix.EHOSTUNREACH), res.ExitCode, "%s is refused as unreachable: %s", target, stderr)
		assert.Less(t, time.Since(start), 4*time.Second, "%s is refused at once, not after the connection's timeout", target)
	}

	t.Run("without the filter the same command reaches the host", func(t *testing.T) {
		filter := egressFilter
		egressFilter = func([]netip.Addr, egressLists) string { return "" }
		t.Cleanup(func() { egressFilter = filter })
		_, stderr, res := run(t, j, nettest.SendHi(hostIP+":"+own.Port))
		assert.Equal(t, 0, res.ExitCode, stderr)
		own.AssertHeard(t, "hi")
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
	hostIP := nettest.HostAddress(t)
	own := nettest.Listen(t, hostIP)
	_, _, res := run(t, j, nettest.SendHi(hostIP+":"+own.Port))
	assert.NotEqual(t, 0, res.ExitCode, "the filter is still there")
	own.AssertHeardNothing(t)
}

func TestNetworkReachesTheInternet(t *testing.T) {
	needNetwork(t)
	far := nettest.NewInternet(t)
	address := far.Serve(t, "hello from afar")
	j := newJail(t)
	j.Network = true
	stdout, stderr, res := run(t, j, fmt.Sprintf(`python3 -c '
import urllib.request
print(urllib.request.urlopen("http://%s/", timeout=10).read().decode())'`, address))
	assert.Equal(t, 0, res.ExitCode, stderr)
	assert.Equal(t, "hello from afar\n", stdout)

	_, _, res = run(t, j, nettest.SendHi(far.Host.String()+":80"))
	assert.Equal(t, int(unix.EHOSTUNREACH), res.ExitCode, "the host's side of the link is one of the host's addresses")
}

func TestEgressRulesChooseWhatTheJailReaches(t *testing.T) {
	needNetwork(t)
	far := nettest.NewInternet(t)
	other := far.Another(t)
	allowed, refused := far.Serve(t, "allowed"), far.ServeOn(t, other, nettest.Text("refused"))
	j := newJail(t)
	j.Network = true

	stdout, stderr, res := run(t, j, nettest.Fetch(refused))
	require.Equal(t, 0, res.ExitCode, "without rules both are reached: %s", stderr)
	assert.Equal(t, "refused\n", stdout)

	j.Egress = Egress{DenyByDefault: true, Allow: []string{far.Far.String()}}
	stdout, stderr, res = run(t, j, nettest.Fetch(allowed))
	assert.Equal(t, 0, res.ExitCode, stderr)
	assert.Equal(t, "allowed\n", stdout, "deny by default reaches what is allowed")
	_, stderr, res = run(t, j, nettest.SendHi(refused))
	assert.Equal(t, int(unix.EHOSTUNREACH), res.ExitCode, "and not another address: %s", stderr)

	j.Egress = Egress{Allow: []string{"198.51.100.0/24"}, Deny: []string{other.String() + "/32"}}
	_, stderr, res = run(t, j, nettest.SendHi(refused))
	assert.Equal(t, int(unix.EHOSTUNREACH), res.ExitCode, "allow by default refuses what is denied: %s", stderr)
	stdout, stderr, _ = run(t, j, nettest.Fetch(allowed))
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
