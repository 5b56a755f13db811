package secret

import "unicode/utf8"

// HintMinLength is the shortest secret whose last characters are shown:
// below it, four characters would give away too much of it.
const HintMinLength = 10

// Hint is what may be shown of a stored secret: whether there is one, its
// length, and its last four characters when it is long enough.
type Hint struct {
	IsSet  bool
	Last4  string // "" when not shown
	Length int
}

// HintOf describes a secret for people, without revealing it.
func HintOf(secret string) Hint {
	if secret == "" {
		return Hint{}
	}
	n := utf8.RuneCountInString(secret)
	h := Hint{IsSet: true, Length: n}
	if n >= HintMinLength {
		r := []rune(secret)
		h.Last4 = string(r[n-4:])
	}
	return h
}
