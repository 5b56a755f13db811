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
	// globMatchTime bounds the matching of the paths found against the pattern.
	globMatchTime = 10 * time.Second
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
	paths := strings.Split(res.Output, "\n")
	return matchPaths(ctx, newGlob(strings.TrimPrefix(pattern, "/")), paths, root, path.IsAbs(pattern)), nil
}

// matchPaths keeps the paths under root that g matches, up to
// MaxGlobResults, within globMatchTime and while ctx lasts. A relative
// pattern matches the path below root, an absolute one the whole path.
func matchPaths(ctx context.Context, g *glob, paths []string, root string, absolute bool) []string {
	ctx, cancel := context.WithTimeout(ctx, globMatchTime)
	defer cancel()
	matches := []string{}
	prefix := strings.TrimSuffix(root, "/") + "/"
	for _, p := range paths {
		if ctx.Err() != nil || len(matches) == MaxGlobResults {
			break
		}
		rel, ok := strings.CutPrefix(p, prefix)
		if absolute {
			rel = strings.TrimPrefix(p, "/")
		}
		if ok && rel != "" && g.match(rel) {
			matches = append(matches, p)
		}
	}
	sort.Strings(matches)
	return matches
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
