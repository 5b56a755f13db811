package store

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// scannable is a row type that lists its own columns and scan targets, in
// the same order.
type scannable[R any] interface {
	*R
	// scanTargets are pointers to the row's fields, one per column of its
	// columns list.
	scanTargets() []any
}

// findRows runs q for the given columns and scans each row straight into
// the row's fields. GORM's own scan makes a value per cell by reflection and
// copies it across; on the routes read most (every request's token, the
// sandboxes' list and view) that cost more than the rest of the request.
func findRows[R any, P scannable[R]](ctx context.Context, q *gorm.DB, columns string) ([]R, error) {
	rows, err := q.Select(columns).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []R
	for rows.Next() {
		var r R
		if err := rows.Scan(P(&r).scanTargets()...); err != nil {
			return nil, withContextError(ctx, err)
		}
		out = append(out, r)
	}
	return out, withContextError(ctx, rows.Err())
}

// takeRow is findRows for one row: gorm.ErrRecordNotFound when there is none.
func takeRow[R any, P scannable[R]](ctx context.Context, q *gorm.DB, columns string) (R, error) {
	rows, err := findRows[R, P](ctx, q.Limit(1), columns)
	switch {
	case err != nil:
		var zero R
		return zero, err
	case len(rows) == 0:
		var zero R
		return zero, gorm.ErrRecordNotFound
	}
	return rows[0], nil
}

// withContextError reports a failure after the context ended as the
// context's error, as the GORM callbacks do for its own statements.
func withContextError(ctx context.Context, err error) error {
	if cause := ctx.Err(); err != nil && cause != nil && !errors.Is(err, cause) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	return err
}
