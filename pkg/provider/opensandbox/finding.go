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
	sb, found, err := c.createdBy(labels.Instance).Find(ctx)
	if err != nil || !found {
		return provider.Instance{}, false, err
	}
	return provider.Instance{ID: sb.ID, WorkDir: workDir}, true, nil
}

// createdBy is the search for the sandboxes labelled with one creation's
// id. The server filters by metadata; the labels are checked as well.
func (c *client) createdBy(creation string) provider.Search[sandbox] {
	filter := url.Values{labelManagedBy: {"auxilia"}, labelInstance: {creation}}
	// The filter is itself a query string, sent as one (encoded) parameter.
	query := url.Values{"metadata": {filter.Encode()}, "pageSize": {"20"}}
	return provider.Search[sandbox]{
		List: func(ctx context.Context) ([]sandbox, error) {
			var answer listAnswer
			if err := c.do(ctx, c.lifecycle("find", "GET", "/sandboxes?"+query.Encode(), nil), &answer); err != nil {
				return nil, err
			}
			if answer.Items == nil {
				return nil, failure(provider.ErrFailed, "find", "the answer to listing sandboxes has no items")
			}
			return *answer.Items, nil
		},
		Match: func(sb sandbox) bool {
			return sb.ID != "" && sb.Metadata[labelInstance] == creation && sb.Metadata[labelManagedBy] == "auxilia"
		},
	}
}
