package manifest

import (
	"context"
	"encoding/json"

	"github.com/auxilia/sandboxes/pkg/client"
	"github.com/getkin/kin-openapi/openapi3"
)

// sandboxView is a sandbox as the server has it, whatever its provider.
type sandboxView struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Provider    string         `json:"provider"`
	Description string         `json:"description"`
	URL         string         `json:"url"`
	HasSecret   bool           `json:"has_secret"`
	Config      map[string]any `json:"config"`
	ManagedBy   string         `json:"managed_by"`
}

// agentView is an agent as the server has it, with its binding.
type agentView struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Emoji       string `json:"emoji"`
	Color       string `json:"color"`
	ManagedBy   string `json:"managed_by"`
	Sandbox     *struct {
		SandboxID string            `json:"sandbox_id"`
		Name      string            `json:"name"`
		Tools     map[string]string `json:"tools"`
		Approval  struct {
			GrantedBy string `json:"granted_by"`
			WithCall  bool   `json:"with_call"`
		} `json:"approval"`
	} `json:"sandbox"`
}

// state is what the server has: its sandboxes and agents by name, the
// providers' config schemas and default urls, and the tools.
type state struct {
	sandboxes   map[string]sandboxView
	agents      map[string]agentView
	configs     map[string]*openapi3.Schema
	defaultURLs map[string]string // what a sandbox that gives no url gets, such as Daytona's API
	tools       []string
}

// recode converts between two shapes of the same JSON.
func recode(from, to any) error {
	js, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(js, to)
}

func readState(ctx context.Context, api *client.API) (*state, error) {
	s := &state{sandboxes: map[string]sandboxView{}, agents: map[string]agentView{}, configs: map[string]*openapi3.Schema{},
		defaultURLs: map[string]string{}}
	size := 200
	for token := ""; ; {
		res, err := client.Expect(api.ListSandboxesWithResponse(ctx, &client.ListSandboxesParams{PageSize: &size, PageToken: &token}))
		if err != nil {
			return nil, err
		}
		for _, item := range res.JSON200.Items {
			var v sandboxView
			if err := recode(item, &v); err != nil {
				return nil, err
			}
			s.sandboxes[v.Name] = v
		}
		if token = res.JSON200.NextPageToken; token == "" {
			break
		}
	}
	for token := ""; ; {
		res, err := client.Expect(api.ListAgentsWithResponse(ctx, &client.ListAgentsParams{PageSize: &size, PageToken: &token}))
		if err != nil {
			return nil, err
		}
		for _, item := range res.JSON200.Items {
			var v agentView
			if err := recode(item, &v); err != nil {
				return nil, err
			}
			s.agents[v.Name] = v
		}
		if token = res.JSON200.NextPageToken; token == "" {
			break
		}
	}
	providers, err := client.Expect(api.ListProvidersWithResponse(ctx))
	if err != nil {
		return nil, err
	}
	for _, p := range providers.JSON200.Items {
		delete(p.ConfigSchema, "$schema")
		var schema openapi3.Schema
		if err := recode(p.ConfigSchema, &schema); err != nil {
			return nil, err
		}
		s.configs[string(p.Name)] = &schema
		s.defaultURLs[string(p.Name)] = p.Url.Default
	}
	tools, err := client.Expect(api.ListToolsWithResponse(ctx))
	if err != nil {
		return nil, err
	}
	for _, t := range tools.JSON200.Items {
		s.tools = append(s.tools, string(t.Name))
	}
	return s, nil
}
