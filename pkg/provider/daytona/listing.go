package daytona

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// decodeList reads a list in either shape Daytona has answered with: a bare
// JSON array (older servers, and the toolbox's file list) or a page
// {"items": […], "nextCursor": …}. The cursor is "" on the last page.
func decodeList[T any](body []byte) ([]T, string, error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var items []T
		err := json.Unmarshal(body, &items)
		return items, "", err
	}
	var page struct {
		Items      []T     `json:"items"`
		NextCursor *string `json:"nextCursor"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, "", err
	}
	if page.Items == nil {
		return nil, "", errors.New("the answer is neither a list nor a page of items")
	}
	cursor := ""
	if page.NextCursor != nil {
		cursor = *page.NextCursor
	}
	return page.Items, cursor, nil
}

// maxListPages bounds a listing that a server not filtering by labels would make long.
const maxListPages = 5

// createdBy is the search for the sandbox that one create call made, by
// the label holding that call's id. Daytona's list is eventually
// consistent, so it looks a few times.
func (c *Client) createdBy(op, creation string) provider.Search[sandbox] {
	filter, _ := json.Marshal(map[string]string{labelCreation: creation}) // a map of strings always encodes
	return provider.Search[sandbox]{
		List: func(ctx context.Context) ([]sandbox, error) {
			return c.listSandboxes(ctx, op, url.Values{"labels": {string(filter)}, "limit": {"20"}})
		},
		Match:   func(sb sandbox) bool { return sb.Labels[labelCreation] == creation },
		Looks:   3,
		Backoff: c.waits.backoff(),
	}
}

// listSandboxes lists the sandboxes matching query, following the cursor.
func (c *Client) listSandboxes(ctx context.Context, op string, query url.Values) ([]sandbox, error) {
	var all []sandbox
	for page := 0; page < maxListPages; page++ {
		ans, err := c.do(ctx, c.controlPlane(op, http.MethodGet, "/sandbox?"+query.Encode(), nil))
		if err != nil {
			return nil, err
		}
		if ans.Status != http.StatusOK {
			return nil, c.controlPlaneError(op, ans)
		}
		items, cursor, err := decodeList[sandbox](ans.Body)
		if err != nil {
			return nil, failure(provider.ErrFailed, op, "reading the list of sandboxes: %s", err)
		}
		all = append(all, items...)
		if cursor == "" {
			break
		}
		query.Set("cursor", cursor)
	}
	return all, nil
}

// FindCreated finds the sandbox a Create with these labels made (by our
// instance id, its creation label), for the reaper when its creator died.
func (c *Client) FindCreated(ctx context.Context, labels provider.Labels) (provider.Instance, bool, error) {
	if labels.Instance == "" {
		return provider.Instance{}, false, nil
	}
	const op = "find"
	sb, found, err := c.createdBy(op, labels.Instance).Find(ctx)
	if err != nil && err == ctx.Err() { // not one listing was made
		err = provider.RoundTripError(ctx, providerName, op, err)
	}
	if err != nil || !found {
		return provider.Instance{}, false, err
	}
	return provider.Instance{ID: sb.ID}, true, nil
}
