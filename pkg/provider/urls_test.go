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
