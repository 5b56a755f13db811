package e2b

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// listedSandbox is the part of ListedSandbox (spec/openapi.yml) a search reads.
type listedSandbox struct {
	SandboxID string            `json:"sandboxID"`
	Metadata  map[string]string `json:"metadata"`
}

// FindCreated finds the sandbox a Create with these labels made, by our
// instance id in its metadata, for the reaper when its creator died
// before hearing the answer: GET /v2/sandboxes lists running and paused
// sandboxes alike, filtered by metadata (handlers/sandboxes_list.go,
// GetV2Sandboxes). A failed listing is an error, never "not found".
func (c *Client) FindCreated(ctx context.Context, labels provider.Labels) (provider.Instance, bool, error) {
	if labels.Instance == "" {
		return provider.Instance{}, false, nil
	}
	sb, found, err := c.createdBy(labels.Instance).Find(ctx)
	if err != nil || !found {
		return provider.Instance{}, false, err
	}
	return provider.Instance{ID: sb.SandboxID}, true, nil
}

// createdBy is the search for the sandboxes labelled with one creation's
// id. The filter is a query string of its own, sent as one parameter; the
// server unescapes the parameter's value once more as a whole, then each
// key and value (utils/sandboxes_list.go, parseFilters), so the filter is
// escaped once more than a query string would be. A sandbox matches when
// its metadata has every pair (FilterSandboxesOnMetadata); the labels are
// checked here as well.
func (c *Client) createdBy(creation string) provider.Search[listedSandbox] {
	filter := url.Values{"auxilia": {"true"}, "auxilia_instance": {creation}}
	query := url.Values{"metadata": {url.QueryEscape(filter.Encode())}, "limit": {"20"}}
	return provider.Search[listedSandbox]{
		List: func(ctx context.Context) ([]listedSandbox, error) {
			a, err := c.send(ctx, "find", http.MethodGet, "/v2/sandboxes?"+query.Encode(), nil)
			switch {
			case err != nil:
				return nil, err
			case !a.OK():
				return nil, c.caller.Refusal("find", a)
			}
			var listed []listedSandbox
			if err := json.Unmarshal(a.Body, &listed); err != nil || listed == nil {
				return nil, failure(provider.ErrFailed, "find", "the answer to listing sandboxes is not a list: %q", provider.Clip(string(a.Body), 120))
			}
			return listed, nil
		},
		Match: func(sb listedSandbox) bool {
			return sb.SandboxID != "" && sb.Metadata["auxilia_instance"] == creation && sb.Metadata["auxilia"] == "true"
		},
	}
}

var _ provider.Finder = (*Client)(nil)
