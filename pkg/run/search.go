package run

import (
	"context"
	"errors"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// Bounds of the search tools.
const (
	maxGlobScanned = 50000
	MaxGlobResults = 1000
	MaxGrepMatches = 1000
	// maxSearchOutput bounds what a search reads from the provider: the
	// paths find lists, the lines grep finds.
	maxSearchOutput = 4 << 20
	// grepLineBytes bounds a line of grep's output: a path, its line
	// number and MaxLineBytes of text.
	grepLineBytes = maxPathLength + 32 + MaxLineBytes
	searchTimeout = 60 * time.Second
	// globMatchTime bounds the matching of the paths found against the pattern.
	globMatchTime = 10 * time.Second
	// skippedDir is a folder the searches do not enter below the folder
	// searched: a Python environment (every local instance has one in its
	// working directory), whose thousands of installed files would drown
	// what is looked for. A search of one, or of a folder in one, still
	// looks there.
	skippedDir = ".venv"
)

// GlobResult is what glob found, sorted by path. Truncated says some paths
// were left out: past MaxGlobResults, or not looked at for want of time or room.
type GlobResult struct {
	Paths     []string
	Truncated bool
}

// Glob returns the paths under in.Path (the working directory when empty)
// that match in.Pattern, read as glob reads it (see glob): `*`, `?`,
// classes and brace sets within a name, `**` across directories.
func (s *Service) Glob(ctx context.Context, workspaceID, runID string, in GlobInput, approved bool) (GlobResult, error) {
	pattern, dir := in.Pattern, in.Path
	if err := checkPattern(pattern); err != nil {
		return GlobResult{}, err
	}
	if err := checkGlob(pattern); err != nil {
		return GlobResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "glob", Input: in, Approved: approved, Args: map[string]any{"pattern": pattern, "path": dir}})
	if err != nil {
		return GlobResult{}, err
	}
	root, err := resolve(c, "path", dir)
	if err != nil {
		return GlobResult{}, err
	}
	paths, truncated, err := s.listTree(ctx, c, root)
	if err != nil {
		return GlobResult{}, s.providerError(c, err)
	}
	out := matchPaths(ctx, newGlob(strings.TrimPrefix(pattern, "/")), paths, root, path.IsAbs(pattern))
	out.Truncated = out.Truncated || truncated
	return out, nil
}

// listTree returns every path under root that glob looks at, at most
// maxGlobScanned, and whether some were left out: in one call where the
// provider lists a tree (provider.TreeLister: Daytona's /files/search),
// else with a walk, find through a command. OpenSandbox's execd has two
// routes that could stand in for the walk, and neither keeps glob's answer
// and bounds: GET /files/search answers files only, never a folder the
// pattern names, matching the pattern against each file's name rather
// than its path; GET /directories/list with a depth answers every path,
// but describes each (a stat and an owner lookup) and walks the whole tree
// before it answers, with no limit and after the caller has left, where
// find stops at maxGlobScanned. Measured on its fake, the listing is far
// faster on 200 files and slower on 10,000 (docs/benchmarks.md).
// Daytona's listing walks the whole tree too, but describes nothing and
// was faster than the walk at both sizes.
func (s *Service) listTree(ctx context.Context, c *call, root string) ([]string, bool, error) {
	if lister, ok := c.client.(provider.TreeLister); ok {
		paths, truncated, err := lister.ListTree(ctx, c.instance, root, maxGlobListed)
		if !errors.Is(err, provider.ErrUnsupported) {
			if err != nil {
				return nil, false, err
			}
			kept, cut := withoutSkipped(paths, root, maxGlobScanned)
			return kept, truncated || cut, nil
		}
	}
	cmd := "find " + shell.Quote(root) + " -mindepth 1 -name " + skippedDir + " -type d -prune -o -print 2>/dev/null | head -n " + strconv.Itoa(maxGlobScanned+1)
	res, err := c.client.Execute(ctx, c.instance, provider.ExecRequest{Command: cmd, Timeout: searchTimeout, OutputLimit: maxSearchOutput})
	if err != nil {
		return nil, false, err
	}
	paths, truncated := searchLines(res, maxGlobScanned)
	return paths, truncated, nil
}

// maxGlobListed bounds what a provider's listing hands on: the paths glob
// looks at and the skippedDir contents a listing does not leave out.
const maxGlobListed = 4 * maxGlobScanned

// withoutSkipped drops from a listing what find's prune leaves out: the
// skippedDir folders below root and what they hold (a file of that name
// too: a listing does not tell folders apart), keeping at most most paths.
func withoutSkipped(paths []string, root string, most int) ([]string, bool) {
	prefix := strings.TrimSuffix(root, "/") + "/"
	kept := make([]string, 0, min(len(paths), most))
	for _, p := range paths {
		rel := strings.TrimPrefix(p, prefix)
		if rel == skippedDir || strings.HasPrefix(rel, skippedDir+"/") || strings.Contains(rel, "/"+skippedDir+"/") || strings.HasSuffix(rel, "/"+skippedDir) {
			continue
		}
		if len(kept) == most {
			return kept, true
		}
		kept = append(kept, p)
	}
	return kept, false
}

// matchPaths keeps the paths under root that g matches, up to
// MaxGlobResults, within globMatchTime and while ctx lasts. A relative
// pattern matches the path below root, an absolute one the whole path.
func matchPaths(ctx context.Context, g *glob, paths []string, root string, absolute bool) GlobResult {
	ctx, cancel := context.WithTimeout(ctx, globMatchTime)
	defer cancel()
	out := GlobResult{Paths: []string{}}
	prefix := strings.TrimSuffix(root, "/") + "/"
	for _, p := range paths {
		if ctx.Err() != nil {
			out.Truncated = true
			break
		}
		rel, ok := strings.CutPrefix(p, prefix)
		if absolute {
			rel = strings.TrimPrefix(p, "/")
		}
		if !ok || rel == "" || !g.match(rel) {
			continue
		}
		if len(out.Paths) == MaxGlobResults {
			out.Truncated = true
			break
		}
		out.Paths = append(out.Paths, p)
	}
	sort.Strings(out.Paths)
	return out
}

// Match is one line grep found.
type Match struct {
	Path string
	Line int
	Text string
}

// GrepResult is the lines grep found. Truncated says some were left out
// (past MaxGrepMatches, or for want of time or room) or a line's text was
// cut at MaxLineBytes.
type GrepResult struct {
	Matches   []Match
	Truncated bool
}

// Grep returns the lines of the text files under in.Path (or the file
// in.Path) that contain in.Pattern, taken literally.
//
// It runs grep on every provider: OpenSandbox's execd has no search of
// files' contents (its GET /files/search matches names only), and
// Daytona's GET /files/find answers otherwise than grep (see the Daytona
// client's ListTree).
func (s *Service) Grep(ctx context.Context, workspaceID, runID string, in GrepInput, approved bool) (GrepResult, error) {
	pattern, dir := in.Pattern, in.Path
	if err := checkPattern(pattern); err != nil {
		return GrepResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	c, err := s.begin(ctx, workspaceID, runID, Call{Tool: "grep", Input: in, Approved: approved, Args: map[string]any{"pattern": pattern, "path": dir}})
	if err != nil {
		return GrepResult{}, err
	}
	root, err := resolve(c, "path", dir)
	if err != nil {
		return GrepResult{}, err
	}
	// -Z ends each file name with a NUL, so names with colons parse safely.
	// grep would skip the searched folder itself were it a skippedDir.
	skip := ""
	if path.Base(root) != skippedDir {
		skip = " --exclude-dir=" + skippedDir
	}
	cmd := "grep -rnHIFZ --color=never" + skip + " -e " + shell.Quote(pattern) + " -- " + shell.Quote(root) +
		" 2>/dev/null | head -n " + strconv.Itoa(MaxGrepMatches+1) + " | cut -b -" + strconv.Itoa(grepLineBytes)
	res, err := c.client.Execute(ctx, c.instance, provider.ExecRequest{Command: cmd, Timeout: searchTimeout, OutputLimit: maxSearchOutput})
	if err != nil {
		return GrepResult{}, s.providerError(c, err)
	}
	lines, truncated := searchLines(res, MaxGrepMatches)
	out := GrepResult{Matches: []Match{}, Truncated: truncated}
	for _, line := range lines {
		file, rest, ok := strings.Cut(line, "\x00")
		if !ok {
			continue
		}
		num, text, ok := strings.Cut(rest, ":")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		if len(line) >= grepLineBytes || len(text) > MaxLineBytes {
			text = cutText(text, MaxLineBytes)
			out.Truncated = true
		}
		out.Matches = append(out.Matches, Match{Path: file, Line: n, Text: text})
	}
	return out, nil
}

// searchLines returns the whole lines of a search's output, at most most of
// them, and whether any were left out. Output cut at its limit or at the
// search's timeout ends with a notice each, after a line that may be
// unfinished: these are dropped, as is the empty string after the last newline.
func searchLines(res provider.ExecResult, most int) ([]string, bool) {
	lines := strings.Split(res.Output, "\n")
	drop := 1
	if res.Truncated {
		drop++
	}
	if res.TimedOut {
		drop++
	}
	lines = lines[:max(0, len(lines)-drop)]
	truncated := res.Truncated || res.TimedOut
	if len(lines) > most {
		lines, truncated = lines[:most], true
	}
	return lines, truncated
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
