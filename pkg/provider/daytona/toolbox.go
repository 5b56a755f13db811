package daytona

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// toolboxCall is one call to a sandbox's toolbox, by its path after the sandbox id.
type toolboxCall struct {
	op          string
	method      string
	path        string // "/files/info", "/process/execute", …
	query       url.Values
	body        []byte
	contentType string
	timeout     time.Duration // 0 means Waits.Request
	stream      bool          // see request.stream
}

// toolbox sends tc to inst's toolbox, through Daytona's toolbox proxy with
// the same API key. When the proxy refuses the call on the sandbox's account
// (an unknown or destroyed sandbox is a 401, a stopped one a 400 "Is the
// Sandbox started?", one without a container a 404) the control plane is
// asked why: a bad key is ErrUnauthorized, a destroyed sandbox ErrGone, and a
// stopped or archived one is started and the call sent once more, which is
// safe because the refused call never reached the sandbox.
func (c *Client) toolbox(ctx context.Context, inst provider.Instance, tc toolboxCall) (answer, error) {
	base, err := c.toolboxBase(ctx, tc.op, inst)
	if err != nil {
		return answer{}, err
	}
	ans, err := c.do(ctx, c.toolboxRequest(base, inst.ID, tc))
	if err != nil || !refusedForSandbox(ans) {
		return ans, err
	}
	sb, err := c.whyRefused(ctx, tc.op, inst.ID, ans)
	if err != nil {
		return answer{}, err
	}
	if sb.ToolboxProxyURL != "" {
		base = sb.ToolboxProxyURL
	}
	if ans, err = c.do(ctx, c.toolboxRequest(base, inst.ID, tc)); err != nil {
		return answer{}, err
	}
	if refusedForSandbox(ans) {
		return answer{}, failure(provider.ErrFailed, tc.op, "%s (the control plane has sandbox %s %s)", describe(ans), inst.ID, sb.State)
	}
	return ans, nil
}

// toolboxBase is the URL of inst's toolbox proxy: the one it was made
// with, else the one the control plane gives now.
func (c *Client) toolboxBase(ctx context.Context, op string, inst provider.Instance) (string, error) {
	base := stateOf(inst).ToolboxProxyURL
	if base == "" {
		sb, err := c.getSandbox(ctx, op, inst.ID)
		if err != nil {
			return "", err
		}
		base = sb.ToolboxProxyURL
	}
	if base == "" {
		return "", failure(provider.ErrFailed, op, "Daytona gave no toolbox proxy URL for sandbox %s", inst.ID)
	}
	return base, nil
}

func (c *Client) toolboxRequest(base, id string, tc toolboxCall) request {
	u := strings.TrimSuffix(base, "/") + "/" + url.PathEscape(id) + tc.path
	if len(tc.query) > 0 {
		u += "?" + tc.query.Encode()
	}
	return request{op: tc.op, method: tc.method, url: u, body: tc.body, contentType: tc.contentType, timeout: tc.timeout, stream: tc.stream}
}

// refusedForSandbox tells the proxy's and runner's refusals from the
// daemon's own answers: the daemon answers a missing file with a bare 404,
// the runner a missing container with a JSON one.
func refusedForSandbox(ans answer) bool {
	switch ans.Status {
	case http.StatusUnauthorized:
		return true
	case http.StatusBadRequest:
		return strings.Contains(messageOf(ans), "Is the Sandbox started?")
	case http.StatusNotFound:
		return structured(ans)
	default:
		return false
	}
}

// whyRefused asks the control plane about a sandbox whose toolbox refused a
// call, and brings it up when it is only asleep.
func (c *Client) whyRefused(ctx context.Context, op, id string, refused answer) (sandbox, error) {
	sb, err := c.getSandbox(ctx, op, id)
	if err != nil {
		return sandbox{}, err // 401: the key is bad after all; 404: the sandbox is gone
	}
	switch phaseOf(sb.State) {
	case phaseReady:
		// Started, yet refused: the proxy may not have caught up; try once more shortly.
		if err := provider.Sleep(ctx, c.waits.PollFirst); err != nil {
			return sandbox{}, provider.RoundTripError(ctx, providerName, op, err)
		}
		return sb, nil
	case phaseGone:
		return sandbox{}, failure(provider.ErrGone, op, "sandbox %s is %s (its toolbox answered %s)", id, sb.State, describe(refused))
	default:
		return c.bringUp(ctx, op, sb)
	}
}

// toolboxError sorts an error answer of the toolbox. The daemon's 403 is
// a file it may not touch, not a refused key.
func toolboxError(op string, ans answer) *provider.Error {
	kind := provider.StatusKind(ans.Status)
	if ans.Status == http.StatusForbidden {
		kind = provider.ErrFailed
	}
	return failure(kind, op, "%s", describe(ans))
}

// fileError sorts an error answer about a path; the daemon's come with no body.
func fileError(op, p string, ans answer) error {
	if ans.Status == http.StatusNotFound {
		return failure(provider.ErrNotFound, op, "%s: %s", p, describe(ans))
	}
	err := toolboxError(op, ans)
	err.Message = p + ": " + err.Message
	return err
}

// workDir asks the toolbox where commands run: the sandbox user's home,
// unless the snapshot sets another working directory.
func (c *Client) workDir(ctx context.Context, op string, inst provider.Instance) (string, error) {
	ans, err := c.toolbox(ctx, inst, toolboxCall{op: op, method: http.MethodGet, path: "/work-dir"})
	if err != nil {
		return "", err
	}
	if ans.Status != http.StatusOK {
		return "", toolboxError(op, ans)
	}
	var wd struct {
		Dir string `json:"dir"`
	}
	if json.Unmarshal(ans.Body, &wd) != nil || !strings.HasPrefix(wd.Dir, "/") {
		return "", failure(provider.ErrFailed, op, "the toolbox gave no absolute work dir: %s", string(ans.Body))
	}
	return wd.Dir, nil
}
