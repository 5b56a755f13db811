package provider

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNormalizeURL(t *testing.T) {
	required := Field{Accepted: true, Required: true}
	open, blocked := Policy{}, Policy{BlockPrivateURLs: true}
	ok := []struct{ in, want string }{
		{"sandbox.internal:8083", "http://sandbox.internal:8083"},
		{"  sandbox.internal:8083  ", "http://sandbox.internal:8083"},
		{"https://Sandbox.Example.com/api/", "https://sandbox.example.com/api"},
		{"http://10.1.2.3:8080", "http://10.1.2.3:8080"},
		{"http://[::1]:8080", "http://[::1]:8080"},
		{"a1.example:80", "http://a1.example:80"},
		{"deadbeef.example", "http://deadbeef.example"},
		{"http://a//", "http://a"},
		{"http://a/api///", "http://a/api"},
		{"http://a:/x", "http://a/x"},
		{"http://sandbox_1.internal", "http://sandbox_1.internal"},
		{"http://xn--bcher-kva.example.", "http://xn--bcher-kva.example."},
		{"http://[fe80::1%25eth0]:8080", "http://[fe80::1%25eth0]:8080"},
	}
	for _, c := range ok {
		got, err := NormalizeURL(c.in, required, open)
		if assert.NoError(t, err, c.in) {
			assert.Equal(t, c.want, got, c.in)
			again, _ := NormalizeURL(got, required, open)
			assert.Equal(t, got, again, "%s: the normalised url normalises to itself", c.in)
		}
	}
	bad := []struct {
		in     string
		policy Policy
	}{
		{"", open},
		{"ftp://x", open},
		{"http://u:p@x", open},
		{"http://x/?q=1", open},
		{"http://x/#f", open},
		{"http://x:0", open},
		{"http://x:65536", open},
		{"http://bücher.example", open},
		{"http://\xef\xef", open},
		{"http://-a.example", open},
		{"http://a..b", open},
		{"http://" + strings.Repeat("a", 64) + ".example", open},
		{"http://a/" + strings.Repeat("é", 1000), open},
		{"http://169.254.169.254", open},
		{"http://169.254.1.1", open},
		{"http://[fd00:ec2::254]", open},
		{"http://[::ffff:169.254.169.254]", open},
		{"http://metadata.google.internal", open},
		{"http://METADATA.GOOGLE.INTERNAL.", open},
		{"http://2852039166", open},
		{"http://0xa9fea9fe", open},
		{"http://0251.0376.0251.0376", open},
		{"http://169.254.43518", open},
		{"http://127.0.0.1", blocked},
		{"http://localhost:8080", blocked},
		{"http://api.localhost", blocked},
		{"http://10.0.0.1", blocked},
		{"http://172.16.5.4", blocked},
		{"http://192.168.0.1", blocked},
		{"http://[fd12::1]", blocked},
		{"http://[::1]", blocked},
		{"http://0.0.0.0", blocked},
		{"http://100.64.1.1", blocked},
	}
	for _, c := range bad {
		_, err := NormalizeURL(c.in, required, c.policy)
		assert.Error(t, err, "%s should be refused (block private: %v)", c.in, c.policy.BlockPrivateURLs)
	}

	got, err := NormalizeURL("", Field{Accepted: true, Required: true, Default: "https://app.example/api"}, open)
	assert.NoError(t, err)
	assert.Equal(t, "https://app.example/api", got, "an empty url takes the default")
	_, err = NormalizeURL("http://x", Field{}, open)
	assert.Error(t, err, "a provider that takes no url refuses one")
}

// An IPv6 address that carries an IPv4 one reaches it through a
// translator or tunnel, so the IPv4 address is judged too.
func TestNormalizeURLJudgesTheIPv4InsideIPv6(t *testing.T) {
	required := Field{Accepted: true, Required: true}
	open, blocked := Policy{}, Policy{BlockPrivateURLs: true}
	for _, c := range []struct {
		host   string
		policy Policy
		why    string
	}{
		{"64:ff9b::a9fe:a9fe", open, "169.254.169.254 through NAT64"},
		{"64:ff9b::169.254.169.254", open, "169.254.169.254 through NAT64"},
		{"64:ff9b::6464:64c8", open, "100.100.100.200 through NAT64"},
		{"64:ff9b:1:a9fe:a9:fe00::", open, "169.254.169.254 through NAT64"},
		{"64:ff9b:1:0:a9:fea9:fe00:0", open, "169.254.169.254 through NAT64"},
		{"64:ff9b:1::a9fe:a9fe", open, "169.254.169.254 through NAT64"},
		{"2002:a9fe:a9fe::1", open, "169.254.169.254 through 6to4"},
		{"2002:a9fe:101::", open, "169.254.1.1 through 6to4"},
		{"2001:0:102:304::5601:5601", open, "169.254.169.254 through Teredo"},
		{"2001:0:a9fe:a9fe::1", open, "169.254.169.254 through its Teredo server"},
		{"::a9fe:a9fe", open, "169.254.169.254 through IPv4-compatible"},
		{"::ffff:0:a9fe:a9fe", open, "169.254.169.254 through SIIT"},
		{"fe80::5efe:a9fe:a9fe", open, "169.254.169.254 through ISATAP"},
		{"2001:db8::200:5efe:a9fe:a9fe", open, "169.254.169.254 through ISATAP"},
		{"64:ff9b::7f00:1", blocked, "127.0.0.1 through NAT64"},
		{"64:ff9b::a00:1", blocked, "10.0.0.1 through NAT64"},
		{"2002:c0a8:101::1", blocked, "192.168.1.1 through 6to4"},
		{"2001:0:102:304::80ff:fffe", blocked, "127.0.0.1 through Teredo"},
		{"::7f00:1", blocked, "127.0.0.1 through IPv4-compatible"},
		{"::ffff:0:7f00:1", blocked, "127.0.0.1 through SIIT"},
		{"2001:db8::5efe:a00:1", blocked, "10.0.0.1 through ISATAP"},
	} {
		_, err := NormalizeURL("http://["+c.host+"]:8080", required, c.policy)
		if assert.Error(t, err, c.host) {
			assert.Contains(t, err.Error(), c.why, c.host)
		}
	}
	for _, host := range []string{"64:ff9b::808:808", "2002:808:808::1", "2001:0:102:304::f7f7:f7f7", "2001:db8::1",
		"2001:db8::200:5efe:808:808", "::ffff:8.8.8.8"} {
		for _, p := range []Policy{open, blocked} {
			_, err := NormalizeURL("http://["+host+"]:8080", required, p)
			assert.NoError(t, err, "%s reaches a public address (block private: %v)", host, p.BlockPrivateURLs)
		}
	}
	for _, host := range []string{"0.1.2.3", "[::]", "0.0.0.0"} {
		_, err := NormalizeURL("http://"+host+":8080", required, blocked)
		assert.Error(t, err, "%s reaches this server", host)
	}
}
