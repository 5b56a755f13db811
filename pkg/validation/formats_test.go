package validation

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFormats(t *testing.T) {
	cases := []struct {
		name  string
		check func(string) bool
		good  []string
		bad   []string
	}{
		{"pip requirement", PipRequirement,
			[]string{"pandas", "pandas==2.2.*", "numpy>=1.26,<2", "requests[socks,security]>=2.31", "scikit-learn ~= 1.4", "a", "zope.interface===5.0", "torch!=2.0.0"},
			[]string{"", "-e .", "--index-url=http://x", "pandas; python_version<'3.8'", "x @ https://e/x.whl", "pandas==2.2 && id",
				"$(id)", "`id`", "a b", "pandas==", "pkg=1", "'quoted'", "pandas\n", "https://example.com/pkg.tar.gz", "../x", strings.Repeat("a", 201)}},
		{"image reference", ImageRef,
			[]string{"python:3.12-slim", "python", "ghcr.io/org/image:tag", "localhost:5000/team/img", "registry.example.com:443/a/b/c:v1.2",
				"python@sha256:" + strings.Repeat("a", 64), "my_image__x:latest"},
			[]string{"", "Python", "python 3", "python:3.12;id", "python:$(id)", "-rm", "python:", ":tag", "a//b", "https://ghcr.io/x",
				"python:" + strings.Repeat("t", 129)}},
		{"region", Region, []string{"us", "eu", "acme-gpu-1"}, []string{"", "US", "us east", "-us", "us-", "us_east", strings.Repeat("a", 64)}},
		{"bucket", GCSBucket, []string{"acme-sandboxes", "a_b", "abc", "team.data.example"},
			[]string{"", "ab", "Acme", "-acme", "acme-", "goog-x", "my-google-bucket", "192.168.1.1", "a..b", strings.Repeat("a", 64)}},
		{"object prefix", ObjectPrefix, []string{"", "sandbox-snapshots/", "a/b/c/", "x"}, []string{"/abs/", "a//b", "../x/", "a/./b", "a b/"}},
		{"snapshot name", SnapshotName, []string{"daytonaio/sandbox:0.4.3", "my-snapshot", "team@v2"}, []string{"", " x", "x;id", "x y", "-x"}},
		{"env name", EnvName, []string{"A", "_x", "PIP_INDEX_URL", "a1"}, []string{"", "1A", "A-B", "A B", "A=B", "Ä", strings.Repeat("A", 257)}},
		{"egress target", EgressTarget,
			[]string{"pypi.org", "*.pythonhosted.org", "files.pythonhosted.org", "203.0.113.7", "198.51.100.0/24", "2001:db8::/32", "2001:db8::1", "0.0.0.0/0"},
			[]string{"", "pypi", "*.org.", "a.*.org", "**.org", "https://pypi.org", "pypi.org:443", "198.51.100.7/24", "fe80::1%eth0", "1.2.3.4/33",
				"-x.org", "x .org", strings.Repeat("a", 64) + ".org"}},
	}
	for _, c := range cases {
		for _, s := range c.good {
			assert.True(t, c.check(s), "%s: %q should pass", c.name, s)
		}
		for _, s := range c.bad {
			assert.False(t, c.check(s), "%s: %q should fail", c.name, s)
		}
	}
}

func TestStructReportsEveryFieldByJSONPath(t *testing.T) {
	type inner struct {
		Packages []string `json:"default_packages" validate:"dive,pip_requirement"`
		Timeout  int      `json:"timeout" validate:"min=1,max=10"`
		Kind     string   `json:"kind" validate:"oneof=a b"`
	}
	errs := Struct(inner{Packages: []string{"ok", "no way"}, Timeout: 11, Kind: "c"})
	var got []string
	for _, e := range errs {
		got = append(got, e.Field+": "+e.Message)
	}
	assert.ElementsMatch(t, []string{
		"default_packages.1: " + formats["pip_requirement"].message,
		"timeout: must be at most 10",
		"kind: must be one of: a, b",
	}, got)
}
