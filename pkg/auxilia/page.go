package auxilia

// Page sizes of list endpoints.
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// PageRequest asks for at most Size items after the item whose id is After
// (lists are ordered by id; ids are time-ordered UUIDs, so this is creation order).
type PageRequest struct {
	Size  int
	After string
}

// Page is one page of a list. Next is the id to continue after, or empty at the end.
type Page[T any] struct {
	Items []T
	Next  string
}
