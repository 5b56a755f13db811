package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseOriginWritesOriginsAsABrowserDoes(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"https://console.example.com", "https://console.example.com"},
		{" HTTPS://Console.Example.COM ", "https://console.example.com"},
		{"https://console.example.com:443", "https://console.example.com"},
		{"http://console.example.com:80", "http://console.example.com"},
		{"http://console.example.com:443", "http://console.example.com:443"},
		{"https://console.example.com:8443", "https://console.example.com:8443"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"http://[::1]:8080", "http://[::1]:8080"},
	} {
		got, err := ParseOrigin(tc.raw)
		if assert.NoError(t, err, tc.raw) {
			assert.Equal(t, tc.want, got, tc.raw)
		}
	}
	for _, raw := range []string{"", "null", "*", "console.example.com", "https://", "ftp://console.example.com",
		"https://console.example.com/", "https://console.example.com/app", "https://console.example.com?x=1",
		"https://console.example.com?", "https://console.example.com#top", "https://user@console.example.com",
		"file:///etc/passwd", "https:console.example.com", "https://console.example.com:port"} {
		_, err := ParseOrigin(raw)
		assert.Error(t, err, "%q is no origin", raw)
	}
}

func TestAPageIsAllowedFromThisServerOrAnAllowedOrigin(t *testing.T) {
	allowed := []string{"https://console.example.com"}
	for _, tc := range []struct {
		origin, host string
		ok           bool
	}{
		{"http://aux.example.com", "aux.example.com", true},
		{"https://aux.example.com", "aux.example.com", true}, // a proxy in front serves TLS
		{"https://aux.example.com", "AUX.example.com:443", true},
		{"http://127.0.0.1:8080", "127.0.0.1:8080", true},
		{"https://console.example.com", "aux.example.com", true},
		{"http://console.example.com", "aux.example.com", false},
		{"http://aux.example.com:8080", "aux.example.com", false},
		{"http://aux.example.com", "aux.example.com:8080", false},
		{"http://aux.example.com.evil.example", "aux.example.com", false},
		{"null", "aux.example.com", false},
		{"", "aux.example.com", false},
	} {
		assert.Equal(t, tc.ok, originAllowed(tc.origin, tc.host, allowed), "%q at %q", tc.origin, tc.host)
	}
}
