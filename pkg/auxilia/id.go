package auxilia

import "github.com/google/uuid"

// NewID returns a time-ordered UUID (v7), so that ordering by id is creation order.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// ParseID reads an id given by a caller, in its canonical form; ok is false
// for anything that is not a UUID, which can name nothing of ours.
func ParseID(s string) (id string, ok bool) {
	u, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return u.String(), true
}
