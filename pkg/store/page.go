package store

import (
	"errors"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
)

// pageQuery limits q to one page ordered by id, fetching one extra row to
// learn whether another page follows.
func pageQuery(q *gorm.DB, req auxilia.PageRequest) *gorm.DB {
	if req.After != "" {
		q = q.Where("id > ?", req.After)
	}
	return q.Order("id").Limit(req.Size + 1)
}

// pageSQL is pageQuery for a query written in SQL: it extends a WHERE
// condition and its arguments with the page's bound, order and limit.
func pageSQL(where string, args []any, req auxilia.PageRequest) (string, []any) {
	if req.After != "" {
		where, args = where+" AND id > ?", append(args, req.After)
	}
	return where + " ORDER BY id LIMIT ?", append(args, req.Size+1)
}

// toPage converts rows fetched by pageQuery or pageSQL.
func toPage[R any, T any](rows []R, req auxilia.PageRequest, id func(R) string, conv func(R) T) auxilia.Page[T] {
	page := auxilia.Page[T]{Items: make([]T, 0, min(len(rows), req.Size))}
	for i, r := range rows {
		if i == req.Size {
			page.Next = id(rows[i-1])
			break
		}
		page.Items = append(page.Items, conv(r))
	}
	return page
}

// notFound maps GORM's missing-row error to the domain's.
func notFound(err error, resource string) error {
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return auxilia.NotFound(resource)
	}
	return err
}
