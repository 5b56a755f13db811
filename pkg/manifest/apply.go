package manifest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/auxilia/sandboxes/pkg/client"
	"github.com/google/uuid"
)

// Options tune Apply.
type Options struct {
	DryRun bool // show the changes, make none
	Prune  bool // delete the sandboxes and agents the file does not have
	// Getenv reads the environment variables secret_env names.
	Getenv func(string) string
	// SecretPrefix, when set, is how every name secret_env gives must start
	// (AUXILIA_APPLY_SECRET_PREFIX): the operator's narrowing of what a file
	// may read.
	SecretPrefix string
}

// change is one step of a plan: what it shows and what it does.
type change struct {
	line string
	do   func(ctx context.Context, ids map[string]string) error
}

// Apply brings the server in line with the file: it checks the whole file
// first (nothing is applied when any of it is wrong), writes each change to
// out (secrets never), then makes them unless DryRun. It returns how many
// changes there were.
func Apply(ctx context.Context, api *client.API, f *File, opts Options, out io.Writer) (int, error) {
	s, err := readState(ctx, api)
	if err != nil {
		return 0, err
	}
	if err := check(f, s, opts); err != nil {
		return 0, err
	}
	changes := plan(api, f, s, opts)
	for _, c := range changes {
		fmt.Fprintln(out, c.line)
	}
	if len(changes) == 0 {
		fmt.Fprintln(out, "no changes")
	}
	if opts.DryRun {
		return len(changes), nil
	}
	ids := map[string]string{} // sandbox name → id, for bindings
	for name, sb := range s.sandboxes {
		ids[name] = sb.ID
	}
	var failed []error
	for _, c := range changes {
		if err := c.do(ctx, ids); err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", strings.TrimSpace(c.line[1:]), err))
		}
	}
	return len(changes), errors.Join(failed...)
}

// createSandbox makes a sandbox; byDefault is its provider's url for a file
// that gives none.
func createSandbox(api *client.API, want Sandbox, secret, byDefault string) change {
	line := fmt.Sprintf("+ sandbox %q (%s)", want.Name, want.Provider)
	if secret != "" {
		line += ", " + secretFrom(want.SecretEnv, destination(want.URL, byDefault))
	}
	return change{line, func(ctx context.Context, ids map[string]string) error {
		body := map[string]any{"name": want.Name, "provider": want.Provider}
		if want.Description != nil {
			body["description"] = *want.Description
		}
		if want.URL != nil {
			body["url"] = *want.URL
		}
		if secret != "" {
			body["secret"] = secret
		}
		if want.Config != nil {
			body["config"] = want.Config
		}
		var create client.SandboxCreate
		if err := recode(body, &create); err != nil {
			return err
		}
		res, err := client.Expect(api.CreateSandboxWithResponse(ctx, &client.CreateSandboxParams{IdempotencyKey: client.NewKey()}, create))
		if err != nil {
			return err
		}
		var v sandboxView
		if err := recode(res.JSON201, &v); err != nil {
			return err
		}
		ids[want.Name] = v.ID
		return nil
	}}
}

func createAgent(api *client.API, want Agent) change {
	line := fmt.Sprintf("+ agent %q", want.Name)
	if want.Sandbox != "" {
		line += fmt.Sprintf(", bound to %q", want.Sandbox)
	}
	return change{line, func(ctx context.Context, ids map[string]string) error {
		body := client.AgentCreate{Name: want.Name, Description: want.Description, Emoji: want.Emoji, Color: want.Color}
		res, err := client.Expect(api.CreateAgentWithResponse(ctx, &client.CreateAgentParams{IdempotencyKey: client.NewKey()}, body))
		if err != nil {
			return err
		}
		if want.Sandbox == "" {
			return nil
		}
		return bind(ctx, api, res.JSON201.Id, want, nil, ids)
	}}
}

// bind puts the agent's binding as the file wants it; kept is the approval
// rule the server has, for what the file's rule leaves out (nil: none).
func bind(ctx context.Context, api *client.API, agentID uuid.UUID, want Agent, kept *Approval, ids map[string]string) error {
	sandboxID, err := uuid.Parse(ids[want.Sandbox])
	if err != nil {
		return fmt.Errorf("sandbox %q was not made", want.Sandbox)
	}
	body := client.BindingPut{SandboxId: sandboxID}
	if want.Tools != nil {
		var tools client.ToolsInput
		if err := recode(want.Tools, &tools); err != nil {
			return err
		}
		body.Tools = &tools
	}
	rule := client.ApprovalRuleInput{}
	for _, from := range []*Approval{kept, want.Approval} {
		if from != nil && from.GrantedBy != "" {
			g := client.ApprovalRuleInputGrantedBy(from.GrantedBy)
			rule.GrantedBy = &g
		}
		if from != nil && from.WithCall != nil {
			rule.WithCall = from.WithCall
		}
	}
	if rule != (client.ApprovalRuleInput{}) {
		body.Approval = &rule
	}
	_, err = client.Expect(api.BindSandboxWithResponse(ctx, agentID, nil, body))
	return err
}
