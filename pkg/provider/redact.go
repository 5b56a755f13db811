package provider

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A provider's words reach people (a sandbox's health, problems, logs)
// only through Scrub: the secret is found in the whole text first, in the
// forms a server may echo it in, and only then is the text clipped, so that
// no cut can leave part of the secret standing.

// MaxMessage is how much of a provider's text is shown, in bytes.
const MaxMessage = 500

// scanLimit bounds how much of a provider's text is searched for the
// secret. Only the first MaxMessage bytes are ever shown, and masks never
// pull later text forward, so what lies past it is dropped unseen.
const scanLimit = 64 << 10

// mask stands for a secret in any of its forms.
const mask = "••••"

// Scrub returns a provider's text fit to show: trimmed, every occurrence of
// the secret masked, and clipped to MaxMessage bytes of the text (an
// ellipsis marks the cut). The secret is found whatever the letters' case
// and whatever whitespace splits it, as itself and encoded in base64
// (standard or URL alphabet, with or without padding, at any byte
// alignment), hex or URL escaping.
func Scrub(text, secret string) string {
	text = strings.TrimSpace(text)
	spans := secretSpans(prefix(text, scanLimit), secret)
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		if s.start >= MaxMessage {
			break
		}
		b.WriteString(text[pos:s.start])
		b.WriteString(mask)
		pos = s.end
	}
	if pos < MaxMessage {
		cut := len(prefix(text, MaxMessage))
		b.WriteString(text[pos:cut])
		pos = cut
	}
	if pos < len(text) {
		b.WriteString("…")
	}
	return b.String()
}

// prefix returns at most n bytes of s, cut at a character boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// span is a range of bytes [start, end) of a text.
type span struct{ start, end int }

// secretSpans finds where the secret stands in text, in any of its forms,
// and where a mask already stands (a text scrubbed before), merged into
// ordered, disjoint spans: a mask is kept whole like the secret, so that
// scrubbing again cannot cut it.
func secretSpans(text, secret string) []span {
	var spans []span
	for from := 0; ; {
		i := strings.Index(text[from:], mask)
		if i < 0 {
			break
		}
		from += i + len(mask)
		spans = append(spans, span{from - len(mask), from})
	}
	if secret == "" {
		return spans
	}
	folded := foldText(text)
	for _, form := range secretForms(secret) {
		needle := foldText(form).s
		if needle == "" {
			continue
		}
		for from := 0; ; {
			i := strings.Index(folded.s[from:], needle)
			if i < 0 {
				break
			}
			i += from
			last := i + len(needle) - 1
			spans = append(spans, span{folded.start[i], folded.end[last]})
			from = i + 1
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var merged []span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// folded is a text without whitespace, in lower case, with the bytes of
// the original that each of its bytes came from.
type folded struct {
	s          string
	start, end []int
}

func foldText(text string) folded {
	var f folded
	var b strings.Builder
	for i, r := range text {
		if unicode.IsSpace(r) {
			continue
		}
		n := b.Len()
		b.WriteRune(unicode.ToLower(r))
		for ; n < b.Len(); n++ {
			f.start = append(f.start, i)
			f.end = append(f.end, i+utf8.RuneLen(r))
		}
	}
	f.s = b.String()
	return f
}

// minDerived is the shortest encoded fragment worth masking: shorter ones
// would blank ordinary words.
const minDerived = 4

// secretForms are the ways a server may echo the secret back: itself, and
// its encodings of at least minDerived characters.
func secretForms(secret string) []string {
	raw := []byte(secret)
	derived := []string{hex.EncodeToString(raw), url.QueryEscape(secret), url.PathEscape(secret)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		derived = append(derived, enc.EncodeToString(raw), enc.WithPadding(base64.NoPadding).EncodeToString(raw))
		// Inside a longer encoded value ("user:secret" in Basic auth), the
		// secret starts at any of three byte alignments: the characters made
		// of its bits alone are the same wherever it stands.
		for lead := 0; lead < 3; lead++ {
			encoded := enc.WithPadding(base64.NoPadding).EncodeToString(append(make([]byte, lead), raw...))
			first := (8*lead + 5) / 6           // the first character with no lead bits
			last := (8*(lead+len(raw)) - 6) / 6 // the last character with only secret bits
			if last >= first {
				derived = append(derived, encoded[first:last+1])
			}
		}
	}
	forms := []string{secret}
	for _, d := range derived {
		if len(d) >= minDerived {
			forms = append(forms, d)
		}
	}
	return forms
}
