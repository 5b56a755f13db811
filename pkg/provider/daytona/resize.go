package daytona

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// resizeSandbox is the body of POST /sandbox/{id}/resize, Daytona's
// ResizeSandboxDto (apps/api/src/sandbox/dto/resize-sandbox.dto.ts): whole
// vCPUs and GiB, each absent when unchanged.
type resizeSandbox struct {
	CPU    int `json:"cpu,omitempty"`
	Memory int `json:"memory,omitempty"`
}

// wanted is the resize that gives a started sandbox the configured CPU and
// memory: only what differs from the sandbox's, as Daytona refuses a resize
// that changes nothing. Its zero value asks for nothing.
func (c *Client) wanted(sb sandbox) resizeSandbox {
	var want resizeSandbox
	if cpu := int(c.cfg.Resources.CPU); cpu > 0 && cpu != sb.CPU {
		want.CPU = cpu
	}
	if memory := c.cfg.Resources.MemoryMB / 1024; memory > 0 && memory != sb.Memory {
		want.Memory = memory
	}
	return want
}

// resize gives a new, started sandbox the configured CPU and memory before
// its first command, and waits until it is started again (Daytona shows it
// "resizing" meanwhile). Daytona's resize (resize in its
// apps/api/src/sandbox/services/sandbox.service.ts) grows a running
// sandbox's CPU and memory only: what it refuses, such as less than the
// snapshot gives or more than the organisation's limit per sandbox, is
// refused here with its words. An API without the route, or with its
// sandbox_resize feature flag off (both NestJS's 404 "Cannot POST …"),
// cannot set resources at all.
func (c *Client) resize(ctx context.Context, op string, sb sandbox) (sandbox, error) {
	want := c.wanted(sb)
	if want == (resizeSandbox{}) {
		return sb, nil
	}
	body, err := json.Marshal(want)
	if err != nil {
		return sandbox{}, failure(provider.ErrInvalidConfig, op, "%s", err)
	}
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodPost, "/sandbox/"+url.PathEscape(sb.ID)+"/resize", body))
	switch {
	case err != nil:
		return sandbox{}, err
	case ans.Status == http.StatusOK || ans.Status == http.StatusCreated:
		if sb, err = decodeSandbox(op, ans); err != nil {
			return sandbox{}, err
		}
		return c.bringUp(ctx, op, sb)
	case ans.Status == http.StatusNotFound && strings.HasPrefix(messageOf(ans), "Cannot POST"):
		return sandbox{}, failure(provider.ErrInvalidConfig, op,
			"resources: this Daytona cannot resize a sandbox (its API has no resize, or its sandbox_resize feature is off), so it cannot set CPU or memory; set them to 0 for the snapshot's: %s", describe(ans))
	case ans.Status == http.StatusBadRequest && !overQuota(ans):
		return sandbox{}, failure(provider.ErrInvalidConfig, op, "resources: Daytona refuses to resize the sandbox to them: %s", describe(ans))
	default:
		return sandbox{}, c.controlPlaneError(op, ans)
	}
}
