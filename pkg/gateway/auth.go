package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// authenticate lets /health through and asks every other call for the bearer secret.
func (s *Server) authenticate(next http.Handler) http.Handler {
	var want [sha256.Size]byte
	if s.cfg.Secret != "" {
		want = sha256.Sum256([]byte(s.cfg.Secret))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			next.ServeHTTP(w, r)
			return
		}
		if s.cfg.Secret == "" {
			writeProblem(w, failure(http.StatusServiceUnavailable, auxilia.CodeUnauthorized,
				"the gateway has no secret configured (set GATEWAY_SECRET), so it accepts no calls").about(wire.SubjectSecret))
			return
		}
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		// Comparing digests keeps the time independent of both the secret's length and the guess.
		got := sha256.Sum256([]byte(strings.TrimSpace(token)))
		if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cloudrun-gateway"`)
			writeProblem(w, failure(http.StatusUnauthorized, auxilia.CodeUnauthorized, "missing or wrong gateway secret"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
