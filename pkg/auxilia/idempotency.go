package auxilia

import "time"

// IdempotencyTTL is how long the answer to a request with an Idempotency-Key is kept.
const IdempotencyTTL = 24 * time.Hour

// IdempotentRequest is a create request made with an Idempotency-Key: the
// fingerprint of its body, and (once done) the answer to replay on a retry.
type IdempotentRequest struct {
	RequestHash string
	Done        bool
	Status      int
	Headers     map[string]string
	Body        []byte
	CreatedAt   time.Time
}
