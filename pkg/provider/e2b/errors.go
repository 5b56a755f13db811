package e2b

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

var failure = provider.Failer(providerName)

// apiError is the control plane's error body (Error in spec/openapi.yml).
type apiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// words are an error answer's message, or its status and text.
func words(a provider.Answer) string {
	var e apiError
	if json.Unmarshal(a.Body, &e) == nil && e.Message != "" {
		return fmt.Sprintf("%d: %s", a.Status, e.Message)
	}
	return provider.StatusWords(a)
}

// badKey says whether a 401 or 403 is the key refused ("Invalid API key,
// …", packages/auth/pkg/auth/internal/middleware/middleware.go), rather
// than a template the key's team may not use.
func badKey(body []byte) bool {
	var e apiError
	return json.Unmarshal(body, &e) == nil && strings.Contains(strings.ToLower(e.Message), "api key")
}

// sandboxOps are the calls about one sandbox, whose 404 is the sandbox gone.
var sandboxOps = map[string]bool{"reconnect": true, "keep alive": true, "pause": true, "destroy": true, "keep": true, "update network": true}

// controlPlaneRefusal sorts the control plane's error answers: the limit
// on concurrent sandboxes (429, create_instance.go) is the account's
// quota, any other 429 the rate limiter's (ratelimit.go); a template it
// cannot find (404, cache/templates/errors.go) or a create it refuses
// (400) is the configuration.
func controlPlaneRefusal(op string, a provider.Answer) error {
	msg := words(a)
	lower := strings.ToLower(msg)
	switch {
	case a.Status == http.StatusUnauthorized:
		return failure(provider.ErrUnauthorized, op, "%s", msg)
	case a.Status == http.StatusForbidden && badKey(a.Body):
		return failure(provider.ErrUnauthorized, op, "%s", msg)
	case a.Status == http.StatusTooManyRequests && strings.Contains(lower, "maximum number of concurrent"):
		return failure(provider.ErrQuota, op, "%s", msg)
	case a.Status == http.StatusTooManyRequests:
		return failure(provider.ErrRateLimited, op, "%s", msg)
	case a.Status == http.StatusNotFound && sandboxOps[op]:
		return failure(provider.ErrGone, op, "%s", msg)
	case a.Status == http.StatusNotFound && op == "forget":
		return failure(provider.ErrGone, op, "%s", msg)
	case a.Status == http.StatusBadRequest, a.Status == http.StatusForbidden, a.Status == http.StatusNotFound:
		return failure(provider.ErrInvalidConfig, op, "%s", msg)
	}
	return failure(provider.StatusKind(a.Status), op, "%s", msg)
}
