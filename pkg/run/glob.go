package run

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// maxGlobAlternatives bounds the patterns a glob's brace sets make
// (`{a,b}/{c,d}` makes four).
const maxGlobAlternatives = 64

// glob matches slash-separated relative paths against a pattern, as
// doublestar (and execd, and most shells with globstar) reads one: `*`, `?`,
// classes (`[a-z]`, `[!a]`, `[^a]`) and `\` escapes within a name, brace
// sets (`*.{py,ts}`, `{src,lib/x}/*.go`), and `**` for any number of
// directories. The work of one match is bounded by the alternatives the
// brace sets make times the pattern's segments times the path's, whatever
// the pattern: each segment of an alternative is tried once against each
// part of the path, never again for another way of splitting the path
// among `**`s.
type glob struct {
	alternatives [][]string
	// steps counts the comparisons made, across every match: the work done.
	steps int
}

// checkGlob refuses a pattern glob cannot read, naming the field.
func checkGlob(pattern string) error {
	var fe auxilia.FieldErrors
	if !doublestar.ValidatePattern(pattern) {
		fe.Add("pattern", "is not a valid glob pattern (an unclosed [ or {, or a trailing \\)")
		return fe.Err()
	}
	if _, ok := expandBraces(pattern); !ok {
		fe.Add("pattern", "makes more than %d patterns with its brace sets", maxGlobAlternatives)
		return fe.Err()
	}
	return nil
}

// newGlob reads a pattern checkGlob accepts.
func newGlob(pattern string) *glob {
	patterns, _ := expandBraces(pattern)
	g := &glob{}
	for _, p := range patterns {
		g.alternatives = append(g.alternatives, strings.Split(p, "/"))
	}
	return g
}

// match reports whether name matches the whole pattern.
func (g *glob) match(name string) bool {
	parts := strings.Split(name, "/")
	for _, segments := range g.alternatives {
		if g.matchSegments(segments, parts) {
			return true
		}
	}
	return false
}

func (g *glob) matchSegments(segments, parts []string) bool {
	// reached[j] holds when the segments so far match parts[:j] exactly.
	reached := make([]bool, len(parts)+1)
	reached[0] = true
	for _, seg := range segments {
		if seg == "**" {
			if !g.spread(reached) {
				return false
			}
			continue
		}
		if !g.advance(reached, seg, parts) {
			return false
		}
	}
	return reached[len(parts)]
}

// spread lets `**` take any number of parts: every position from the first
// one reached on is reached. It reports whether any is.
func (g *glob) spread(reached []bool) bool {
	for j := range reached {
		if reached[j] {
			for k := j; k < len(reached); k++ {
				reached[k] = true
				g.steps++
			}
			return true
		}
	}
	return false
}

// advance matches one segment against the part after each position reached.
// It reports whether any position is still reached.
func (g *glob) advance(reached []bool, seg string, parts []string) bool {
	alive := false
	for j := len(parts); j > 0; j-- { // backwards: each position reads the one before it, not yet moved
		reached[j] = reached[j-1] && g.matchPart(seg, parts[j-1])
		alive = alive || reached[j]
	}
	reached[0] = false
	return alive
}

func (g *glob) matchPart(seg, part string) bool {
	g.steps++
	return doublestar.MatchUnvalidated(seg, part)
}

// expandBraces returns the patterns a pattern's brace sets make, in order,
// or false past maxGlobAlternatives. Braces inside a class or after `\`
// are literal.
func expandBraces(pattern string) ([]string, bool) {
	open, end, options := firstBraceSet(pattern)
	if open < 0 {
		return []string{pattern}, true
	}
	var out []string
	for _, option := range options {
		more, ok := expandBraces(pattern[:open] + option + pattern[end+1:])
		if !ok || len(out)+len(more) > maxGlobAlternatives {
			return nil, false
		}
		out = append(out, more...)
	}
	return out, true
}

// firstBraceSet finds the first brace set: where it opens and closes, and
// its options (split at its own commas, not its nested sets'). open is -1
// when there is none.
func firstBraceSet(p string) (open, end int, options []string) {
	open = -1
	depth, from := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			if close := strings.IndexByte(p[i+1:], ']'); close >= 0 {
				i += close + 1
			}
		case '{':
			if depth == 0 {
				open, from = i, i+1
			}
			depth++
		case ',':
			if depth == 1 {
				options = append(options, p[from:i])
				from = i + 1
			}
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth == 0 {
				return open, i, append(options, p[from:i])
			}
		}
	}
	return -1, -1, nil
}
