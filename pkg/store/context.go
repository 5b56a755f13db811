package store

import (
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// reportContextErrors makes a statement that failed because its context
// ended fail with the context's error, so that callers tell a caller who
// gave up from a broken database. SQLite answers such a statement with its
// own "interrupted (9)", which says neither.
func reportContextErrors(g *gorm.DB) error {
	mark := func(tx *gorm.DB) {
		if tx.Error == nil || tx.Statement == nil || tx.Statement.Context == nil {
			return
		}
		if cause := tx.Statement.Context.Err(); cause != nil && !errors.Is(tx.Error, cause) {
			tx.Error = fmt.Errorf("%w: %w", cause, tx.Error)
		}
	}
	cb := g.Callback()
	return errors.Join(
		cb.Create().After("*").Register("auxilia:context_errors", mark),
		cb.Query().After("*").Register("auxilia:context_errors", mark),
		cb.Update().After("*").Register("auxilia:context_errors", mark),
		cb.Delete().After("*").Register("auxilia:context_errors", mark),
		cb.Row().After("*").Register("auxilia:context_errors", mark),
		cb.Raw().After("*").Register("auxilia:context_errors", mark),
	)
}
