package run

import (
	"context"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Bounds of the search tools.
const (
	maxGlobScanned = 50000
	MaxGlobResults = 1000
	MaxGrepMatches = 1000
	searchTimeout  = 60 * time.Second
)

// Glob returns the paths under dir (the working directory when empty) that
// match pattern: `*` and `?` within a name, `**` across directories.
func (s *Service) Glob(ctx context.Context, workspaceID, runID, pattern, dir string, approved bool) ([]string, error) {
	if err := checkPattern(pattern); err != nil {
		return nil, err
	}
	for _, seg := range strings.Split(pattern, "/") {
		if _, err := path.Match(seg, ""); err != nil {
			var fe auxilia.FieldErrors
			fe.Add("pattern", "is not a valid glob pattern (%s)", seg)
			return nil, fe.Err()
		}
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "glob", Approved: approved, Args: map[string]any{"pattern": pattern, "path": dir}})
	if err != nil {
		return nil, err
	}
	root, err := resolve(c, "path", dir)
	if err != nil {
		return nil, err
	}
	cmd := "find " + shellQuote(root) + " -mindepth 1 -print 2>/dev/null | head -n " + strconv.Itoa(maxGlobScanned)
	res, err := c.client.Execute(ctx, c.instance, provider.ExecRequest{Command: cmd, Timeout: searchTimeout, OutputLimit: 16 << 20})
	if err != nil {
		return nil, s.providerError(c, err)
	}
	matches := []string{}
	for _, p := range strings.Split(res.Output, "\n") {
		rel, ok := strings.CutPrefix(p, strings.TrimSuffix(root, "/")+"/")
		if path.IsAbs(pattern) {
			rel = p // an absolute pattern matches whole paths
		}
		if ok && rel != "" && globMatch(strings.TrimPrefix(pattern, "/"), strings.TrimPrefix(rel, "/")) {
			matches = append(matches, p)
			if len(matches) == MaxGlobResults {
				break
			}
		}
	}
	sort.Strings(matches)
	return matches, nil
}

// Match is one line grep found.
type Match struct {
	Path string
	Line int
	Text string
}

// Grep returns the lines of the text files under dir (or the file dir)
// that contain pattern, taken literally.
func (s *Service) Grep(ctx context.Context, workspaceID, runID, pattern, dir string, approved bool) ([]Match, error) {
	if err := checkPattern(pattern); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "grep", Approved: approved, Args: map[string]any{"pattern": pattern, "path": dir}})
	if err != nil {
		return nil, err
	}
	root, err := resolve(c, "path", dir)
	if err != nil {
		return nil, err
	}
	// -Z ends each file name with a NUL, so names with colons parse safely.
	cmd := "grep -rnHIFZ --color=never -e " + shellQuote(pattern) + " -- " + shellQuote(root) +
		" 2>/dev/null | head -n " + strconv.Itoa(MaxGrepMatches)
	res, err := c.client.Execute(ctx, c.instance, provider.ExecRequest{Command: cmd, Timeout: searchTimeout, OutputLimit: 16 << 20})
	if err != nil {
		return nil, s.providerError(c, err)
	}
	matches := []Match{}
	for _, line := range strings.Split(res.Output, "\n") {
		file, rest, ok := strings.Cut(line, "\x00")
		if !ok {
			continue
		}
		num, text, ok := strings.Cut(rest, ":")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		matches = append(matches, Match{Path: file, Line: n, Text: text})
	}
	return matches, nil
}

func checkPattern(pattern string) error {
	var fe auxilia.FieldErrors
	switch {
	case pattern == "":
		fe.Add("pattern", "is required")
	case len(pattern) > 1024:
		fe.Add("pattern", "must be at most 1024 bytes")
	case strings.ContainsAny(pattern, "\n\x00"):
		fe.Add("pattern", "must be one line")
	}
	return fe.Err()
}

// globMatch matches a slash-separated relative path against a pattern
// whose `**` segments match any number of directories.
func globMatch(pattern, name string) bool {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegments(pat[1:], name[i:]) {
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
