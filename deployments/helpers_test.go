package deployments

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the repository root, relative to this package.
const repoRoot = ".."

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// serverVariables are the environment variables the server reads: every
// name quoted in cmd/auxilia/config.go, and every operator setting a
// provider declares (Env: "…" in its package, which the server reads too).
func serverVariables(t *testing.T) []string {
	t.Helper()
	src := readFile(t, filepath.Join(repoRoot, "cmd", "auxilia", "config.go"))
	vars := uniqueMatches(regexp.MustCompile(`"((?:AUXILIA_[A-Z0-9_]+)|DATABASE_URL)"`), src)
	providers, err := filepath.Glob(filepath.Join(repoRoot, "pkg", "provider", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	declared := regexp.MustCompile(`\bEnv:\s*"(AUXILIA_[A-Z0-9_]+)"`)
	for _, f := range providers {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		for _, v := range uniqueMatches(declared, readFile(t, f)) {
			if !slices.Contains(vars, v) {
				vars = append(vars, v)
			}
		}
	}
	return vars
}

// documentedVariables are the variables named in the first column of the
// configuration table of docs/operations.md.
func documentedVariables(t *testing.T) []string {
	t.Helper()
	doc := readFile(t, filepath.Join(repoRoot, "docs", "operations.md"))
	return uniqueMatches(regexp.MustCompile("(?m)^\\| `((?:AUXILIA_[A-Z0-9_]+)|DATABASE_URL)` \\|"), doc)
}

func uniqueMatches(re *regexp.Regexp, s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

// serverSecurityHeaders are the headers, with their values, that the server
// sets on every answer: the securityHeaders list of api/securityheaders.go,
// whose entries are quoted strings or constants of that file.
func serverSecurityHeaders(t *testing.T) [][2]string {
	t.Helper()
	src := readFile(t, filepath.Join(repoRoot, "api", "securityheaders.go"))
	consts := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^const (\w+) = ("[^"\n]*")$`).FindAllStringSubmatch(src, -1) {
		consts[m[1]] = m[2]
	}
	value := func(word string) string {
		if q, ok := consts[word]; ok {
			word = q
		}
		s, err := strconv.Unquote(word)
		if err != nil {
			t.Fatalf("api/securityheaders.go: %s is neither a string nor a constant of the file", word)
		}
		return s
	}
	list := regexp.MustCompile(`(?s)var securityHeaders = \[\]\[2\]string\{\n(.*?)\n\}\n`).FindStringSubmatch(src)
	if list == nil {
		t.Fatal("api/securityheaders.go has no securityHeaders list")
	}
	var headers [][2]string
	for _, m := range regexp.MustCompile(`(?m)^\s*\{(\w+|"[^"]*"), (\w+|"[^"]*")\},$`).FindAllStringSubmatch(list[1], -1) {
		headers = append(headers, [2]string{value(m[1]), value(m[2])})
	}
	if len(headers) == 0 {
		t.Fatal("api/securityheaders.go: the securityHeaders list reads as empty")
	}
	return headers
}
