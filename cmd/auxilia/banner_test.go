package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const bannerTestToken = "aux_0123456789abcdefghijABCDEFGHIJ_-0123456789x"

func TestTheBannerStandsApartFromTheLogLines(t *testing.T) {
	var b strings.Builder
	printBanner(&b, "http://127.0.0.1:8080", bannerTestToken, false)
	out := b.String()

	// Blank lines before and after: a JSON log line is never glued to it.
	assert.True(t, strings.HasPrefix(out, "\n\n#"), "%q", out[:8])
	assert.True(t, strings.HasSuffix(out, "#\n\n\n"), "%q", out[len(out)-8:])
	// Every line of it is marked, so none reads as a log line.
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for _, line := range lines {
		if strings.TrimSpace(line) != bannerTestToken {
			assert.True(t, strings.HasPrefix(line, "#"), "%q", line)
		}
	}
	// The token is alone on its line, as the tests and people copy it; no escape codes into a file or pipe.
	require.Len(t, regexp.MustCompile(`(?m)^\s+(aux_[A-Za-z0-9_-]{43})$`).FindAllStringSubmatch(out, -1), 1)
	assert.NotContains(t, out, "\x1b[")
	assert.Contains(t, out, `"make token"`)
	assert.Contains(t, out, "http://127.0.0.1:8080")
}

func TestTheBannerBoldsTheTokenOnATerminal(t *testing.T) {
	var b strings.Builder
	printBanner(&b, "http://127.0.0.1:8080", bannerTestToken, true)
	assert.Contains(t, b.String(), "      \x1b[1m"+bannerTestToken+"\x1b[0m\n")
}
