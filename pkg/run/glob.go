package run

import (
	"path"
	"strings"
)

// glob matches slash-separated relative paths against a pattern: `*` and `?`
// within a name, `**` for any number of directories. The work of one match
// is bounded by the pattern's segments times the path's, whatever the
// pattern: each segment of the pattern is tried once against each part of
// the path, never again for another way of splitting the path among `**`s.
type glob struct {
	segments []string
	// steps counts the comparisons made, across every match: the work done.
	steps int
}

func newGlob(pattern string) *glob {
	return &glob{segments: strings.Split(pattern, "/")}
}

// match reports whether name matches the whole pattern.
func (g *glob) match(name string) bool {
	parts := strings.Split(name, "/")
	// reached[j] holds when the segments so far match parts[:j] exactly.
	reached := make([]bool, len(parts)+1)
	reached[0] = true
	for _, seg := range g.segments {
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
	ok, err := path.Match(seg, part)
	return err == nil && ok
}
