package opensandbox

import (
	"context"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// FindCreated finds the sandbox a Create with these labels made, by its
// creation label, for the reaper when the creator died before hearing the
// answer. A failed listing is an error, never "not found".
func (c *client) FindCreated(ctx context.Context, labels provider.Labels) (provider.Instance, bool, error) {
	if labels.Instance == "" {
		return provider.Instance{}, false, nil
	}
	sb, found, err := c.findCreated(ctx, labels.Instance)
	if err != nil || !found {
		return provider.Instance{}, false, err
	}
	return provider.Instance{ID: sb.ID, WorkDir: workDir}, true, nil
}

// findCreated lists the sandboxes labelled with one creation's id. The
// server filters by metadata; the labels are checked here as well, so that
// a server that ignores the filter cannot make another sandbox look like ours.
func (c *client) findCreated(ctx context.Context, creation string) (sandbox, bool, error) {
	filter := url.Values{labelManagedBy: {"auxilia"}, labelInstance: {creation}}
	// The filter is itself a query string, sent as one (encoded) parameter.
	query := url.Values{"metadata": {filter.Encode()}, "pageSize": {"20"}}
	var answer listAnswer
	if err := c.do(ctx, c.lifecycle("find", "GET", "/sandboxes?"+query.Encode(), nil), &answer); err != nil {
		return sandbox{}, false, err
	}
	if answer.Items == nil {
		return sandbox{}, false, failure(provider.ErrFailed, "find", "the answer to listing sandboxes has no items")
	}
	for _, sb := range *answer.Items {
		if sb.ID != "" && sb.Metadata[labelInstance] == creation && sb.Metadata[labelManagedBy] == "auxilia" {
			return sb, true, nil
		}
	}
	return sandbox{}, false, nil
}
