package daytona

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

const providerName = "daytona"

func failure(kind error, op, format string, args ...any) *provider.Error {
	return provider.Errorf(kind, providerName, op, format, args...)
}

// errorBody is an error answer in either of Daytona's shapes: the control
// plane's {path, timestamp, statusCode, error, message} and the toolbox's
// {statusCode, message, code, timestamp, path, method}.
type errorBody struct {
	Message json.RawMessage `json:"message"` // a string, or a list of validation messages
	Error   string          `json:"error"`   // control plane: the status text
	Code    string          `json:"code"`    // toolbox: BAD_REQUEST, NOT_FOUND, …
}

// messageOf returns what Daytona said in an error answer: its message, the
// body's text when it is not JSON, or "" for an empty body (the toolbox's
// file errors have none).
func messageOf(ans answer) string {
	body := bytes.TrimSpace(ans.Body)
	if len(body) == 0 {
		return ""
	}
	var e errorBody
	if json.Unmarshal(body, &e) != nil {
		return string(body)
	}
	if len(e.Message) == 0 && e.Error != "" {
		return e.Error // the daemon's handlers that answer gin.H{"error": …}, as its PTY ones
	}
	var text string
	if json.Unmarshal(e.Message, &text) == nil {
		return text
	}
	var list []string
	if json.Unmarshal(e.Message, &list) == nil {
		return strings.Join(list, ", ")
	}
	return string(body)
}

// structured reports whether the answer carries a JSON error from Daytona's
// proxy or runner, as opposed to the daemon's bare status for a file error.
func structured(ans answer) bool {
	var e errorBody
	return json.Unmarshal(bytes.TrimSpace(ans.Body), &e) == nil && len(e.Message) > 0
}

// describe renders an error answer with Daytona's own words:
// "HTTP 401 Unauthorized: Invalid credentials".
func describe(ans answer) string {
	label := http.StatusText(ans.Status)
	var e errorBody
	if json.Unmarshal(bytes.TrimSpace(ans.Body), &e) == nil {
		switch {
		case e.Code != "":
			label = e.Code
		case e.Error != "" && len(e.Message) > 0:
			label = e.Error
		}
	}
	head := strings.TrimSpace(fmt.Sprintf("HTTP %d %s", ans.Status, label))
	if wait := provider.RetryAfter(ans.Header); wait > 0 {
		head += fmt.Sprintf(" (retry after %s)", wait.Round(time.Second))
	}
	if msg := messageOf(ans); msg != "" {
		return head + ": " + msg
	}
	return head + " (no message)"
}

// controlPlaneError sorts an error answer of the control plane about a
// sandbox, with the secret masked in Daytona's words.
func (c *Client) controlPlaneError(op string, ans answer) error {
	return c.caller.Refusal(op, ans)
}

// controlPlaneRefusal is the caller's wording of the control plane's refusals.
func controlPlaneRefusal(op string, ans answer) error {
	if ans.Status == http.StatusForbidden && messageOf(ans) == "Forbidden resource" {
		return failure(provider.ErrUnauthorized, op, "%s (the API key lacks the permission %s)", describe(ans), permissionFor(op))
	}
	return failure(controlPlaneKind(ans), op, "%s", describe(ans))
}

func controlPlaneKind(ans answer) error {
	msg := messageOf(ans)
	switch {
	case ans.Status == http.StatusNotFound:
		return provider.ErrGone
	case overQuota(ans):
		return provider.ErrQuota
	// Daytona's 403s that are not about the key: assertOrganizationIsNotSuspended
	// in apps/api/src/organization/services/organization.service.ts, and a
	// shared region without a quota for the organisation in
	// apps/api/src/sandbox/services/sandbox.service.ts.
	case ans.Status == http.StatusForbidden && strings.HasPrefix(msg, "Organization is suspended"):
		return provider.ErrQuota
	case ans.Status == http.StatusForbidden && strings.Contains(msg, "is not available to the organization"):
		return provider.ErrInvalidConfig
	}
	return provider.StatusKind(ans.Status)
}

// permissionFor is the permission of Daytona's API keys that op needs: a
// key refused it gets NestJS's bare "Forbidden resource".
func permissionFor(op string) string {
	if op == "destroy" {
		return "delete:sandboxes"
	}
	return "write:sandboxes"
}

// overQuota reports whether Daytona refused a create or a start for the
// organisation's limits: "Total CPU limit exceeded. Maximum allowed: 4.",
// and memory, disk and GPU alike (validateOrganizationQuotas in Daytona's
// apps/api/src/sandbox/services/sandbox.service.ts). Waiting does not help.
func overQuota(ans answer) bool {
	if ans.Status != http.StatusBadRequest {
		return false
	}
	msg := strings.ToLower(messageOf(ans))
	return strings.Contains(msg, "limit exceeded") || strings.Contains(msg, "quota exceeded")
}

// networkRestricted reports whether Daytona refused a sandbox's own network
// settings because the organisation's tier limits its egress (tiers 1 and 2
// of its cloud): "Network access is restricted and cannot be overridden at
// the sandbox level" (updateNetworkSettings in Daytona's
// apps/api/src/sandbox/controllers/sandbox.controller.ts; its cloud refuses
// them at create as well).
func networkRestricted(ans answer) bool {
	return ans.Status == http.StatusBadRequest && strings.HasPrefix(messageOf(ans), "Network access is restricted")
}
