package auxilia

import "regexp"

// managedBy is what a tool that manages sandboxes and agents may call
// itself: 1 to 64 of a–z, 0–9, dot, underscore and hyphen.
var managedBy = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// CheckManagedBy reports a managed_by that is not a tool's name ("" is
// managed by none and always fine).
func CheckManagedBy(fe *FieldErrors, value string) {
	if value != "" && !managedBy.MatchString(value) {
		fe.Add("managed_by", "must be 1 to 64 of a-z, 0-9, '.', '_' and '-', starting with a letter or digit")
	}
}
