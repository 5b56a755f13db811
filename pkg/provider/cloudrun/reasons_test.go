package cloudrun

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// TestGatewayReasonsSortIntoKinds pins how each of the gateway's answers
// (docs/cloudrun-gateway.md's table) is sorted, by code and subject.
func TestGatewayReasonsSortIntoKinds(t *testing.T) {
	cases := []struct {
		status        int
		code, subject string
		kind          error
	}{
		{401, "unauthorized", "", provider.ErrUnauthorized},
		{503, "unauthorized", "secret", provider.ErrUnauthorized},
		{404, "not_found", "sandbox", provider.ErrGone},
		{404, "not_found", "snapshot", provider.ErrGone},
		{404, "not_found", "file", provider.ErrNotFound},
		{404, "not_found", "route", provider.ErrFailed},
		{422, "validation_failed", "", provider.ErrInvalidConfig},
		{422, "validation_failed", "bucket", provider.ErrInvalidConfig},
		{422, "validation_failed", "path", provider.ErrFailed},
		{502, "not_found", "bucket", provider.ErrInvalidConfig},
		{502, "forbidden", "bucket", provider.ErrInvalidConfig},
		{502, "service_unavailable", "storage", provider.ErrFailed},
		{503, "service_unavailable", "capacity", provider.ErrQuota},
		{503, "service_unavailable", "command", provider.ErrFailed},
		{403, "forbidden", "file", provider.ErrUnauthorized},
		{409, "conflict", "sandbox", provider.ErrFailed},
		{409, "conflict", "directory", provider.ErrFailed},
	}
	kinds := []error{provider.ErrUnauthorized, provider.ErrGone, provider.ErrNotFound,
		provider.ErrInvalidConfig, provider.ErrQuota, provider.ErrFailed}
	for _, c := range cases {
		body := fmt.Sprintf(`{"status":%d,"reason":%q,"subject":%q,"detail":"words"}`, c.status, c.code, c.subject)
		err := answerError("op", provider.Answer{Status: c.status, Body: []byte(body)})
		for _, k := range kinds {
			assert.Equal(t, k == c.kind, errors.Is(err, k), "%s about %q: %v is %v?", c.code, c.subject, err, k)
		}
	}
}
