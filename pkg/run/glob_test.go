package run

import (
	"context"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

func TestGlobMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"*.py", "app.py", true},
		{"*.py", "src/app.py", false},
		{"**/*.py", "app.py", true},
		{"**/*.py", "src/lib/util.py", true},
		{"**/*.py", "src/lib/util.pyc", false},
		{"src/**", "src", true},
		{"src/**", "src/a/b", true},
		{"src/**/b", "src/b", true},
		{"src/**/b", "src/a/c/b", true},
		{"src/**/b", "src/a/c/b/d", false},
		{"**", "anything/at/all", true},
		{"**/**/x", "x", true},
		{"a/**/**/x", "a/b/x", true},
		{"?.md", "a.md", true},
		{"?.md", "ab.md", false},
		{"[ab]*/x", "b1/x", true},
		{"[ab]*/x", "c1/x", false},
		{"a**b/c", "axxb/c", true},
		{"[", "[", false},
		{"a/b", "a/b/c", false},
		{"a/b/c", "a/b", false},
		// As people write them: brace sets, negated classes, escapes.
		{"**/*.{py,ts}", "a.py", true},
		{"**/*.{py,ts}", "src/lib/a.ts", true},
		{"**/*.{py,ts}", "src/a.js", false},
		{"{src,lib/x}/*.go", "lib/x/a.go", true},
		{"{src,lib/x}/*.go", "src/a.go", true},
		{"{src,lib/x}/*.go", "lib/a.go", false},
		{"a/{b,{c,d}}/e", "a/d/e", true},
		{"a/{b,{c,d}}/e", "a/bd/e", false},
		{"[!a]*.md", "b.md", true},
		{"[!a]*.md", "a.md", false},
		{"[^a]*.md", "a.md", false},
		{`\{a\}`, "{a}", true},
		{`\{a,b\}`, "a", false},
		{"[{]x", "{x", true},
	} {
		assert.Equal(t, c.want, newGlob(c.pattern).match(c.name), "%s against %s", c.pattern, c.name)
	}
}

func TestGlobPatternsThatCannotBeRead(t *testing.T) {
	refusal := func(pattern string) auxilia.FieldError {
		var problem *auxilia.Error
		require.ErrorAs(t, checkGlob(pattern), &problem, pattern)
		require.Len(t, problem.Fields, 1)
		assert.Equal(t, "pattern", problem.Fields[0].Field)
		return problem.Fields[0]
	}
	for _, pattern := range []string{"[", "a/{b,c", `a\`} {
		assert.Contains(t, refusal(pattern).Message, "is not a valid glob pattern", pattern)
	}
	assert.NoError(t, checkGlob("**/*.{py,ts}"))
	assert.Contains(t, refusal(strings.Repeat("{a,b}", 7)).Message, "brace sets") // 128 patterns
}

// A pattern of many `**` once took time exponential in their number: 72 of
// them and a tail that cannot match kept a server busy long after its caller
// had left. The work is now bounded by the pattern's segments times the path's.
func TestGlobWorkIsBounded(t *testing.T) {
	pattern := strings.Repeat("**/", 340) + "x"
	name := strings.Repeat("a/", 2000) + "b"
	g := newGlob(pattern)
	assert.False(t, g.match(name))
	segments, parts := strings.Count(pattern, "/")+1, strings.Count(name, "/")+1
	assert.LessOrEqual(t, g.steps, (segments+1)*(parts+1))
}

// The matcher answers as the recursive one it replaced on every small case.
func TestGlobMatchesAsTheRecursiveMatcher(t *testing.T) {
	patterns := combinations([]string{"**", "*", "a", "b*", "?", "[ab]", ""}, 4)
	names := combinations([]string{"a", "b", "ab", ""}, 4)
	for _, p := range patterns {
		g := newGlob(p)
		for _, n := range names {
			if g.match(n) != recursiveMatch(strings.Split(p, "/"), strings.Split(n, "/")) {
				t.Fatalf("%q against %q: %v, the recursive matcher says otherwise", p, n, g.match(n))
			}
		}
	}
}

// combinations joins up to n of parts with slashes, in every order.
func combinations(parts []string, n int) []string {
	out, last := parts, parts
	for range n - 1 {
		var next []string
		for _, prefix := range last {
			for _, p := range parts {
				next = append(next, prefix+"/"+p)
			}
		}
		out, last = append(out, next...), next
	}
	return out
}

// recursiveMatch is the matcher glob had before: right, but exponential in
// the number of `**`.
func recursiveMatch(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if recursiveMatch(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

func TestMatchingStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	found := matchPaths(ctx, newGlob("*"), []string{"/w/a", "/w/b"}, "/w", false)
	assert.Equal(t, GlobResult{Paths: []string{}, Truncated: true}, found)
	found = matchPaths(context.Background(), newGlob("*"), []string{"/w/b", "/w/a", "/elsewhere"}, "/w", false)
	assert.Equal(t, GlobResult{Paths: []string{"/w/a", "/w/b"}}, found)
}

// A search's output cut at its limit or its timeout ends in a notice after
// a line that may be unfinished: neither is taken for a result.
func TestSearchLinesDropWhatOutputLimitsCut(t *testing.T) {
	for _, c := range []struct {
		res       provider.ExecResult
		most      int
		lines     []string
		truncated bool
	}{
		{provider.ExecResult{Output: ""}, 10, []string{}, false},
		{provider.ExecResult{Output: "a\nb\n"}, 10, []string{"a", "b"}, false},
		{provider.ExecResult{Output: "a\nb\nc\n"}, 2, []string{"a", "b"}, true},
		{provider.ExecResult{Output: "a\nb\npar\n" + provider.TruncationNotice(9), Truncated: true}, 10, []string{"a", "b"}, true},
		{provider.ExecResult{Output: "a\nb\npar\n" + provider.TimeoutNotice(time.Minute), TimedOut: true}, 10, []string{"a", "b"}, true},
	} {
		lines, truncated := searchLines(c.res, c.most)
		assert.Equal(t, c.lines, lines, "%q", c.res.Output)
		assert.Equal(t, c.truncated, truncated, "%q", c.res.Output)
	}
}
