package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// api calls one server (ours or the floor) as a client would, with a token.
type api struct {
	base  string
	token string
	http  *http.Client
}

// newHTTPClient keeps up to conns connections alive per server, so that a
// closed loop reuses its connections instead of measuring TCP handshakes.
func newHTTPClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 2 * time.Minute,
		Transport: &http.Transport{
			MaxIdleConns:        conns * 2,
			MaxIdleConnsPerHost: conns,
			IdleConnTimeout:     time.Minute,
			DisableCompression:  true,
		},
	}
}

// statusError is an answer with a status other than the one expected.
type statusError struct {
	status int
	body   string
}

// Error names the problem by its title and detail when the body is one
// (not its instance, which differs from request to request), so that
// failures of a kind count as one.
func (e *statusError) Error() string {
	var p struct{ Title, Detail string }
	if json.Unmarshal([]byte(e.body), &p) == nil && p.Title != "" {
		return fmt.Sprintf("HTTP %d %s: %s", e.status, p.Title, p.Detail)
	}
	return fmt.Sprintf("HTTP %d: %s", e.status, e.body)
}

// call sends a request and returns the answer's body when its status is want.
func (a api) call(ctx context.Context, method, path string, body []byte, want int) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := a.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != want {
		return nil, &statusError{status: res.StatusCode, body: string(bytes.TrimSpace(out))}
	}
	return out, nil
}

// callJSON sends in as JSON and decodes the answer into out (when not nil).
func (a api) callJSON(ctx context.Context, method, path string, in any, want int, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	raw, err := a.call(ctx, method, path, body, want)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// created is the part of a created resource the bench needs.
type created struct {
	ID string `json:"id"`
}

func (a api) createSandbox(ctx context.Context, spec map[string]any) (string, error) {
	var c created
	err := a.callJSON(ctx, http.MethodPost, "/api/v1/sandboxes", spec, http.StatusCreated, &c)
	return c.ID, err
}

func (a api) createAgent(ctx context.Context, name string) (string, error) {
	var c created
	err := a.callJSON(ctx, http.MethodPost, "/api/v1/agents", map[string]any{"name": name}, http.StatusCreated, &c)
	return c.ID, err
}

func (a api) bind(ctx context.Context, agentID, sandboxID string) error {
	return a.callJSON(ctx, http.MethodPut, "/api/v1/agents/"+agentID+"/sandbox",
		map[string]any{"sandbox_id": sandboxID}, http.StatusOK, nil)
}

// startRun starts a run of the agent on the thread.
func (a api) startRun(ctx context.Context, agentID, thread string) error {
	_, err := a.call(ctx, http.MethodPost, "/api/v1/agents/"+agentID+"/threads/"+thread+"/runs", nil, http.StatusCreated)
	return err
}

// runView is the part of a run's answer the bench reads.
type runView struct {
	ID      string `json:"id"`
	Sandbox struct {
		Created bool `json:"created"` // false when a warm pool served a new thread
	} `json:"sandbox"`
}

// startRunView starts a run of the agent on the thread and reads the answer.
func (a api) startRunView(ctx context.Context, agentID, thread string) (runView, error) {
	var r runView
	err := a.callJSON(ctx, http.MethodPost, "/api/v1/agents/"+agentID+"/threads/"+thread+"/runs", nil, http.StatusCreated, &r)
	return r, err
}

// execute runs a command through the run's execute tool and checks that it succeeded.
func (a api) execute(ctx context.Context, runID, command string) error {
	var out struct {
		ExitCode int `json:"exit_code"`
	}
	if err := a.callJSON(ctx, http.MethodPost, "/api/v1/runs/"+runID+"/execute", map[string]any{"command": command},
		http.StatusOK, &out); err != nil {
		return err
	}
	if out.ExitCode != 0 {
		return fmt.Errorf("execute %q: exit code %d", command, out.ExitCode)
	}
	return nil
}

// sandboxIDs lists, page by page, the ids of the workspace's sandboxes
// whose name starts with prefix.
func (a api) sandboxIDs(ctx context.Context, prefix string) ([]string, error) {
	var ids []string
	token := ""
	for {
		var page struct {
			Items []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"items"`
			NextPageToken string `json:"next_page_token"`
		}
		path := "/api/v1/sandboxes?page_size=200"
		if token != "" {
			path += "&page_token=" + url.QueryEscape(token)
		}
		if err := a.callJSON(ctx, http.MethodGet, path, nil, http.StatusOK, &page); err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			if strings.HasPrefix(it.Name, prefix) {
				ids = append(ids, it.ID)
			}
		}
		if page.NextPageToken == "" {
			return ids, nil
		}
		token = page.NextPageToken
	}
}
