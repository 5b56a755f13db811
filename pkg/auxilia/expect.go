package auxilia

import "slices"

// Expect is the precondition an If-Match header sets on a write to a
// versioned resource: the versions its writer read. Nil (no header, or "*")
// lets the write through whatever the version; otherwise the resource must
// still be at one of them, and an empty Expect (only tags this API never
// hands out) matches none.
type Expect []int

// Check fails with Stale unless resource, now at version, meets e.
func (e Expect) Check(resource string, version int) error {
	if e == nil || slices.Contains(e, version) {
		return nil
	}
	return Stale(resource, version)
}
