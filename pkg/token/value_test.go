package token

import (
	"strings"
	"testing"
)

func TestCheckValueAcceptsOnlyTheShapeTheServerMakes(t *testing.T) {
	for i := 0; i < 100; i++ {
		if v := newValue(); CheckValue(v) != nil {
			t.Fatalf("a generated token is refused: %v", CheckValue(v))
		}
	}
	weak := map[string]string{
		"one letter":          "x",
		"no prefix":           "e2eAdminToken0123456789abcdefghijklmnopqrst",
		"short":               "aux_0123456789abcdef",
		"one byte short":      "aux_e2eAdminToken0123456789abcdefghijklmnopqrs",
		"one character long":  "aux_e2eAdminToken0123456789abcdefghijklmnopqrstu",
		"not base64url":       "aux_e2eAdminToken0123456789abcdefghijklmnop+/=",
		"hex of 24 bytes":     "aux_" + strings.Repeat("0123456789abcdef", 3),
		"one repeated letter": "aux_" + strings.Repeat("a", 43),
		"few letters":         "aux_" + strings.Repeat("abcdefghijklmno", 3)[:43],
		"spaces inside":       "aux_e2eAdminToken 0123456789abcdefghijklmnopqrs",
	}
	for name, v := range weak {
		err := CheckValue(v)
		if err == nil {
			t.Errorf("%s: %q accepted", name, v)
			continue
		}
		if len(v) > 1 && strings.Contains(err.Error(), v) {
			t.Errorf("%s: the error quotes the value: %s", name, err)
		}
	}
	if err := CheckValue("aux_e2eAdminToken0123456789abcdefghijklmnopqrst"); err != nil {
		t.Errorf("a value of the right shape is refused: %v", err)
	}
}
