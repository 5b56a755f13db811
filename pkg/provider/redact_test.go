package provider

import (
	"encoding/base64"
	"encoding/hex"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"unicode"
)

// secretAlphabet and filler share no character, and filler shares none
// with the encodings: any 4 characters of a secret's form in a scrubbed
// text come from the secret.
const (
	secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~!@$*"
	filler         = " #;,()[]{}<>|"
)

// echoes are the ways a provider's text may carry the secret back.
var echoes = map[string]func(secret string, rng *rand.Rand) string{
	"as is":      func(s string, _ *rand.Rand) string { return s },
	"upper case": func(s string, _ *rand.Rand) string { return strings.ToUpper(s) },
	"lower case": func(s string, _ *rand.Rand) string { return strings.ToLower(s) },
	"base64":     func(s string, _ *rand.Rand) string { return base64.StdEncoding.EncodeToString([]byte(s)) },
	"base64 raw": func(s string, _ *rand.Rand) string { return base64.RawStdEncoding.EncodeToString([]byte(s)) },
	"base64url":  func(s string, _ *rand.Rand) string { return base64.URLEncoding.EncodeToString([]byte(s)) },
	"base64url raw": func(s string, _ *rand.Rand) string {
		return base64.RawURLEncoding.EncodeToString([]byte(s))
	},
	"hex":          func(s string, _ *rand.Rand) string { return hex.EncodeToString([]byte(s)) },
	"hex upper":    func(s string, _ *rand.Rand) string { return strings.ToUpper(hex.EncodeToString([]byte(s))) },
	"query escape": func(s string, _ *rand.Rand) string { return url.QueryEscape(s) },
	"path escape":  func(s string, _ *rand.Rand) string { return url.PathEscape(s) },
	"basic auth": func(s string, _ *rand.Rand) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+s))
	},
	"split": func(s string, rng *rand.Rand) string {
		var b strings.Builder
		for i, r := range s {
			if i > 0 && rng.IntN(3) == 0 {
				b.WriteString([]string{" ", "\n", "\t", "\r\n", "  "}[rng.IntN(5)])
			}
			b.WriteRune(r)
		}
		return b.String()
	},
}

// leaks returns a piece of 4 characters of the secret, or of one of its
// encodings, that the scrubbed text still holds (whatever case or
// whitespace), or "". A piece of the echoes' own words ("Basic") is none:
// a secret may hold "basi" as well.
func leaks(scrubbed, secret string) string {
	out := squeeze(scrubbed)
	forms := []string{secret, hex.EncodeToString([]byte(secret)), url.QueryEscape(secret),
		base64.RawStdEncoding.EncodeToString([]byte(secret)), base64.RawURLEncoding.EncodeToString([]byte(secret))}
	// In "user:secret", the characters after those carrying "user:" and before the last.
	basic := base64.RawStdEncoding.EncodeToString([]byte("user:" + secret))
	if len(basic) > 10 {
		forms = append(forms, basic[7:len(basic)-2])
	}
	for _, f := range forms {
		f = squeeze(f)
		for i := 0; i+4 <= len(f); i++ {
			if strings.Contains(out, f[i:i+4]) && !strings.Contains(echoWords, f[i:i+4]) {
				return f[i : i+4]
			}
		}
	}
	return ""
}

// echoWords are the words the echoes add around a secret, squeezed.
var echoWords = squeeze("Basic ")

func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

func randomText(rng *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// checkScrub embeds an echo of the secret after before bytes of filler and
// checks that nothing of it survives Scrub.
func checkScrub(t *testing.T, secret, form, echo string, before, after int, rng *rand.Rand) {
	t.Helper()
	text := randomText(rng, filler, before) + echo + randomText(rng, filler, after)
	got := Scrub(text, secret)
	if leak := leaks(got, secret); leak != "" {
		t.Fatalf("secret %q echoed %s at byte %d: %q survives in %q", secret, form, before, leak, got)
	}
	if len(got) > MaxMessage+len(mask)+len("…") && !strings.Contains(got, mask) {
		t.Fatalf("the text is not clipped: %d bytes", len(got))
	}
}

func TestScrubLeavesNothingOfTheSecretAroundTheCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 12 {
		secret := randomText(rng, secretAlphabet, 4+rng.IntN(60))
		for form, echo := range echoes {
			e := echo(secret, rng)
			for before := max(0, MaxMessage-len(e)-4); before <= MaxMessage+4; before++ {
				checkScrub(t, secret, form, e, before, rng.IntN(600), rng)
			}
		}
	}
}

func TestScrubKeepsTheRestOfTheText(t *testing.T) {
	const secret = "osk-0123456789abcdef"
	got := Scrub("  401 Unauthorized: key "+secret+" (base64 "+base64.StdEncoding.EncodeToString([]byte(secret))+") refused \n", secret)
	if got != "401 Unauthorized: key •••• (base64 ••••) refused" {
		t.Errorf("Scrub = %q", got)
	}
	if got := Scrub(strings.Repeat("é", 300), ""); got != strings.Repeat("é", 250)+"…" {
		t.Errorf("a long text is clipped at a character boundary: %q", got)
	}
	if got := Scrub("no secret here", "osk-0123456789abcdef"); got != "no secret here" {
		t.Errorf("Scrub = %q", got)
	}
}

func TestScrubbingTwiceKeepsTheMaskWhole(t *testing.T) {
	const secret = "osk-0123456789abcdef"
	for before := MaxMessage - 30; before <= MaxMessage; before++ {
		once := Scrub(strings.Repeat(".", before-len("key "))+"key "+secret+" refused", secret)
		twice := Scrub("401 Unauthorized: "+once, secret)
		if strings.Count(twice, "•")%4 != 0 {
			t.Fatalf("the mask at %d is cut by the second clip: %q", before, twice)
		}
	}
}
