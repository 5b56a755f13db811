package auxilia

import "github.com/google/uuid"

// NewID returns a time-ordered UUID (v7), so that ordering by id is creation order.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }
