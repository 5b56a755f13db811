package agentsandbox

import (
	"context"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// The API groups of agent-sandbox's resources (k8s/crds).
const (
	sandboxVersion   = "agents.x-k8s.io/v1beta1"
	extensionVersion = "extensions.agents.x-k8s.io/v1beta1"
	sandboxGroup     = "/apis/" + sandboxVersion
	extensionGroup   = "/apis/" + extensionVersion
)

// sandboxesPath is the namespace's Sandboxes, or one of them.
func (c *Client) sandboxesPath(name string) string {
	return c.namespaced(sandboxGroup, "sandboxes", name)
}

func (c *Client) templatesPath(name string) string {
	return c.namespaced(extensionGroup, "sandboxtemplates", name)
}

func (c *Client) podPath(name string) string {
	return c.namespaced("/api/v1", "pods", name)
}

func (c *Client) namespaced(group, resource, name string) string {
	p := group + "/namespaces/" + url.PathEscape(c.cfg.Namespace) + "/" + resource
	if name != "" {
		p += "/" + url.PathEscape(name)
	}
	return p
}

// The content types of a merge patch (RFC 7386), which the API server
// takes for custom resources.
const mergePatch = "application/merge-patch+json"

// send makes one call to the API server and returns its answer, whatever
// its status. A kubeconfig that could not be read fails every call.
func (c *Client) send(ctx context.Context, op, method, path string, body any, contentType string) (provider.Answer, error) {
	if c.apiErr != nil {
		return provider.Answer{}, failure(provider.ErrUnauthorized, op, "%s", c.apiErr)
	}
	call, err := c.caller.JSONCall(op, method, c.api.base+path, body, contentType)
	if err != nil {
		return provider.Answer{}, err
	}
	return c.caller.Do(ctx, call)
}

// call makes a call that must succeed and decodes its answer into out (nil: dropped).
func (c *Client) call(ctx context.Context, op, method, path string, body, out any) error {
	contentType := ""
	if method == http.MethodPatch {
		contentType = mergePatch
	}
	a, err := c.send(ctx, op, method, path, body, contentType)
	switch {
	case err != nil:
		return err
	case !a.OK():
		return c.caller.Refusal(op, a)
	case out == nil:
		return nil
	}
	return c.caller.Decode(op, a.Body, out)
}

// lookup reads one object into out (nil: dropped); false when there is
// none.
func (c *Client) lookup(ctx context.Context, op, path string, out any) (bool, error) {
	a, err := c.send(ctx, op, http.MethodGet, path, nil, "")
	switch {
	case err != nil:
		return false, err
	case a.Status == http.StatusNotFound:
		return false, nil
	case !a.OK():
		return false, c.caller.Refusal(op, a)
	case out == nil:
		return true, nil
	}
	return true, c.caller.Decode(op, a.Body, out)
}
