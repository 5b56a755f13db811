package sandbox

import "testing"

func TestSameOrigin(t *testing.T) {
	cases := []struct {
		a, b string
		same bool
	}{
		{"http://sandbox.internal:8083", "http://sandbox.internal:8083/v2", true},
		{"http://sandbox.internal", "http://SANDBOX.internal:80", true},
		{"https://app.daytona.io/api", "https://app.daytona.io.:443/other", true},
		{"", "", true},
		{"http://sandbox.internal:8083", "http://sandbox.internal:8084", false},
		{"http://sandbox.internal:8083", "https://sandbox.internal:8083", false},
		{"http://sandbox.internal", "https://sandbox.internal", false},
		{"http://sandbox.internal", "http://evil.example", false},
		{"http://[::1]:180", "http://[::1:1]:80", false},
		{"http://sandbox.internal", "", false},
		{"http://sandbox.internal", "http://%zz", false},
	}
	for _, c := range cases {
		if got := sameOrigin(c.a, c.b); got != c.same {
			t.Errorf("sameOrigin(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
