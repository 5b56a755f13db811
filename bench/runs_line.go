package main

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/auxilia/sandboxes/pkg/store"
)

// The server runs on Postgres at most store.DefaultStatementsAtOnce()
// statements at once, the others waiting in line, oldest request first,
// though its pool holds store.DefaultMaxConnections connections, and the
// floor runs as many statements as it has connections. The line serves a
// burst's first requests first (§5's pooled starts), but a statement
// holds its place for its whole round trip, its wait for the server's
// processors included, so a long burst of equal requests gets through
// fewer statements in a second than the pool would. A second server, on
// the same database, with a place for every connection, takes its turn
// in the rounds of the 1000-run burst to show what the line costs there.

// lineAsWide is its AUXILIA_DB_STATEMENTS_AT_ONCE: every connection.
const lineAsWide = store.DefaultMaxConnections

// startServerWithWideLine starts that second server; the caller stops it.
func (s *stack) startServerWithWideLine(ctx context.Context) (*process, api, error) {
	env := append(slices.Clip(s.env), "AUXILIA_DB_STATEMENTS_AT_ONCE="+strconv.Itoa(lineAsWide),
		"AUXILIA_DATA_DIR="+filepath.Join(s.tmp, "data-wide-line"))
	p, err := startProcess(ctx, "auxilia (a place in line for every connection)", s.bin, []string{"serve"}, env)
	if err != nil {
		return nil, api{}, err
	}
	a := s.ours
	a.base = p.URL
	return p, a, nil
}
