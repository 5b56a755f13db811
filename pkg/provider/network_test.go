package provider

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// In the network of inOwnNetwork, this host has a public address of its own
// besides loopback, and these names resolve (through /etc/hosts).
const (
	ownIPv4 = "203.0.113.7"
	ownIPv6 = "2001:db8::7"
	hosts   = ownIPv4 + " own.test\n" +
		"64:ff9b::a9fe:a9fe metadata-nat64.test\n" +
		"2002:a9fe:a9fe::1 metadata-6to4.test\n" +
		"64:ff9b::7f00:1 loopback-nat64.test\n"
)

// inOwnNetwork runs the calling test again in a network and mount namespace
// of its own (as root, as the tests run), set up as described above, and
// reports whether this is that run: the caller then does its checks, and
// otherwise returns.
func inOwnNetwork(t *testing.T) bool {
	t.Helper()
	if os.Getenv("PROVIDER_TEST_OWN_NETWORK") != "" {
		return true
	}
	hostsFile := filepath.Join(t.TempDir(), "hosts")
	require.NoError(t, os.WriteFile(hostsFile, []byte("127.0.0.1 localhost\n"+hosts), 0o644))
	setup := `ip link set lo up
ip addr add ` + ownIPv4 + `/32 dev lo
ip -6 addr add ` + ownIPv6 + `/128 dev lo nodad
mount --bind "$HOSTS" /etc/hosts
exec "$@"`
	cmd := exec.Command("unshare", "--net", "--mount", "sh", "-ec", setup, "sh",
		os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "PROVIDER_TEST_OWN_NETWORK=1", "HOSTS="+hostsFile)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the test in its own network:\n%s", out)
	require.Contains(t, string(out), "--- PASS: "+t.Name(), "the test ran in its own network:\n%s", out)
	return false
}

// Under BlockPrivateURLs every address on the host's interfaces is refused,
// public ones too, when a url is saved and when it is dialled.
func TestBlockPrivateURLsRefusesTheServersOwnAddresses(t *testing.T) {
	if !inOwnNetwork(t) {
		return
	}
	required := Field{Accepted: true, Required: true}
	for _, host := range []string{ownIPv4, "[" + ownIPv6 + "]"} {
		_, err := NormalizeURL("http://"+host+":8080", required, Policy{BlockPrivateURLs: true})
		if assert.Error(t, err, host) {
			assert.Contains(t, err.Error(), "an address of this server", host)
		}
		_, err = NormalizeURL("http://"+host+":8080", required, Policy{})
		assert.NoError(t, err, "%s is allowed unless private addresses are blocked", host)
	}

	for host, listen := range map[string]string{ownIPv4: ownIPv4, "[" + ownIPv6 + "]": ownIPv6, "own.test": ownIPv4} {
		ln, err := net.Listen("tcp", net.JoinHostPort(listen, "0"))
		require.NoError(t, err)
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		srv.Listener = ln
		srv.Start()
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		url := "http://" + host + ":" + port + "/"

		err = get(url, Policy{BlockPrivateURLs: true})
		if assert.Error(t, err, url) {
			assert.Contains(t, err.Error(), "refused to dial", url)
			assert.Contains(t, err.Error(), "an address of this server", url)
		}
		assert.NoError(t, get(url, Policy{}), "%s is reached unless private addresses are blocked", url)
		srv.Close()
	}
}

// A name is judged by the address it resolves to, and an IPv6 address by
// the IPv4 address it carries, when dialled.
func TestDialJudgesTheIPv4InsideTheResolvedAddress(t *testing.T) {
	if !inOwnNetwork(t) {
		return
	}
	for _, c := range []struct {
		url    string
		policy Policy
		why    string
	}{
		{"http://metadata-nat64.test/", Policy{}, "169.254.169.254 through NAT64"},
		{"http://metadata-6to4.test/", Policy{}, "169.254.169.254 through 6to4"},
		{"http://loopback-nat64.test:8080/", Policy{BlockPrivateURLs: true}, "127.0.0.1 through NAT64"},
		{"http://[64:ff9b::a9fe:a9fe]/", Policy{}, "169.254.169.254 through NAT64"},
		{"http://[2001:0:102:304::5601:5601]/", Policy{}, "169.254.169.254 through Teredo"},
		{"http://[::ffff:0:7f00:1]:8080/", Policy{BlockPrivateURLs: true}, "127.0.0.1 through SIIT"},
	} {
		err := get(c.url, c.policy)
		if assert.Error(t, err, c.url) {
			assert.Contains(t, err.Error(), "refused to dial", c.url)
			assert.Contains(t, err.Error(), c.why, c.url)
		}
	}
}

// get asks for url through the provider transport under the policy.
func get(url string, p Policy) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := (&http.Client{Transport: NewTransport(p)}).Do(req)
	if err != nil {
		return err
	}
	return res.Body.Close()
}
