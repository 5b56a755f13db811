package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"golang.org/x/net/html"
)

const headerCSP = "Content-Security-Policy"

// securityHeaders go on every answer, whoever reads it: a browser may be
// led to any URL of this server, and the headers cost other clients nothing.
var securityHeaders = [][2]string{
	{"X-Content-Type-Options", "nosniff"},
	// No page of this server may be framed, so that no other site can lay
	// its own page over the console's buttons (approve, delete).
	{"X-Frame-Options", "DENY"},
	{headerCSP, answerPolicy},
	// same-origin, not no-referrer: with no-referrer a browser sends
	// "Origin: null" on the console's own POSTs, and an origin check could
	// no longer tell them from a forged request's.
	{"Referrer-Policy", "same-origin"},
	// No other site loads this server's answers into its pages.
	//
	// There is no Cross-Origin-Opener-Policy: it would take from a site that
	// opens the console the handle on its window, which reaches little (the
	// console holds no frame and opens no window), and Chromium then starts
	// the console in a new process on every arrival from another site,
	// 100 to 250 ms more on a cold load in the browser tests.
	{"Cross-Origin-Resource-Policy", "same-origin"},
	// Powers the console never uses, refused to any script that runs in it.
	{"Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()"},
}

// answerPolicy is the Content-Security-Policy of every answer but the
// console's page: nothing it holds may load or run anything, nor be framed.
const answerPolicy = "default-src 'none'; frame-ancestors 'none'"

// secureAnswers sets securityHeaders on every answer, before anything else
// runs, so that errors and panics carry them too. Every answer's header
// holds the same value slices, made once: nothing writes into a header's
// values (a handler that changes one, as the console's page does its
// policy, sets a slice of its own), and an append to one of length and
// capacity 1 makes a new one.
func secureAnswers() echo.MiddlewareFunc {
	type header struct {
		key    string
		values []string
	}
	shared := make([]header, len(securityHeaders))
	for i, kv := range securityHeaders {
		shared[i] = header{http.CanonicalHeaderKey(kv[0]), []string{kv[1]}}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			for _, kv := range shared {
				h[kv.key] = kv.values
			}
			return next(c)
		}
	}
}

// consolePolicy is the Content-Security-Policy of the console's page, the
// built index.html whose bytes are page: scripts from this origin and, of
// inline scripts, only those the page holds, named by their hashes, which
// are read from the page itself so that they cannot fall behind it.
func consolePolicy(page []byte) string {
	scripts := append([]string{"'self'"}, inlineScriptHashes(page)...)
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + strings.Join(scripts, " "),
		// The terminal (xterm.js) and the dialogs' scroll lock write <style>
		// elements whose text changes with each terminal and theme: no hash
		// can name them, and xterm.js takes no nonce. A style runs no code,
		// and with img-src and connect-src kept to this origin it can send
		// nothing elsewhere. Style attributes stay refused: nothing uses them
		// (React's style prop sets properties, which no policy governs).
		"style-src 'self' 'unsafe-inline'",
		"style-src-attr 'none'",
		"img-src 'self' data:", // provider icons and the favicon are data: URLs
		"connect-src 'self'",   // 'self' takes in the terminal's ws: or wss: to this origin
		"object-src 'none'",
		"base-uri 'none'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; ")
}

// inlineScriptHashes are the CSP sources ('sha256-…') of the inline scripts
// of an HTML page, each the hash of the script's text as a browser reads it.
func inlineScriptHashes(page []byte) []string {
	var hashes []string
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return hashes
		case html.StartTagToken:
			name, more := z.TagName()
			if string(name) != "script" {
				continue
			}
			external := false
			for more {
				var key []byte
				key, _, more = z.TagAttr()
				external = external || string(key) == "src"
			}
			// The tokenizer reads a script's text raw, with its line ends
			// made \n as a browser makes them before hashing.
			if z.Next() == html.TextToken && !external {
				sum := sha256.Sum256(z.Text())
				hashes = append(hashes, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'")
			}
		}
	}
}
