package manifest

import (
	"context"
	"errors"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/client"
	"github.com/google/uuid"
)

// ManagedBy is the mark apply gives what it makes (the managed_by of a
// sandbox or an agent): --prune deletes only what carries it.
const ManagedBy = "auxilia-apply"

// Options tune Apply.
type Options struct {
	DryRun bool // show the changes, make none
	// Prune deletes the sandboxes and agents apply made (ManagedBy) that
	// the file no longer has; what was made otherwise is never deleted.
	Prune bool
	// Getenv reads the environment variables secret_env names.
	Getenv func(string) string
	// SecretPrefix, when set, is how every name secret_env gives must start
	// (AUXILIA_APPLY_SECRET_PREFIX): the operator's narrowing of what a file
	// may read.
	SecretPrefix string
}

// Result is what Apply planned and what became of each change.
type Result struct {
	DryRun bool `json:"dry_run"`
	// Problems are the file's faults; when there are any, nothing is planned.
	Problems []string `json:"problems,omitempty"`
	Changes  []Change `json:"changes"`
}

// Change is one step of the plan.
type Change struct {
	Action  string `json:"action"` // create, update or delete
	Kind    string `json:"kind"`   // sandbox or agent
	Name    string `json:"name"`
	Summary string `json:"summary"` // the plan's line, such as + sandbox "Local" (local)
	// Outcome is planned (a dry run), refused (the server or the plan
	// refuses it: nothing is made), made or failed.
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
}

// Outcomes of a change.
const (
	Planned = "planned"
	Refused = "refused"
	Made    = "made"
	Failed  = "failed"
)

// ErrRefused is Apply's error when a change of the plan is refused: then
// no change is made.
var ErrRefused = errors.New("the plan is refused, and nothing was changed")

// change is one step of a plan: what it shows, how the server is asked
// whether it would make it, and what it does.
type change struct {
	Change
	check   func(ctx context.Context) error // the server's dry run; nil: nothing to ask
	refusal string                          // why the plan refuses it, known without asking
	do      func(ctx context.Context, ids map[string]string) error
}

// Apply brings the server in line with the file: it checks the whole file
// first, then asks the server to validate each change without making it
// (nothing is applied when any of it is wrong or refused), then makes the
// changes unless DryRun. Secrets never appear in the result.
func Apply(ctx context.Context, api *client.API, f *File, opts Options) (Result, error) {
	res := Result{DryRun: opts.DryRun, Changes: []Change{}}
	s, err := readState(ctx, api)
	if err != nil {
		return res, err
	}
	if err := check(f, s, opts); err != nil {
		var p Problems
		if errors.As(err, &p) {
			res.Problems = p
		}
		return res, err
	}
	changes := plan(api, f, s, opts)
	refused := 0
	for _, c := range changes {
		c.Outcome = Planned
		if c.refusal == "" && c.check != nil {
			if err := c.check(ctx); err != nil {
				c.refusal = err.Error()
			}
		}
		if c.refusal != "" {
			c.Outcome, c.Error = Refused, c.refusal
			refused++
		}
		res.Changes = append(res.Changes, c.Change)
	}
	if refused > 0 {
		return res, fmt.Errorf("%w: %d of %d change(s) refused", ErrRefused, refused, len(changes))
	}
	if opts.DryRun {
		return res, nil
	}
	ids := map[string]string{} // sandbox name → id, for bindings
	for name, sb := range s.sandboxes {
		ids[name] = sb.ID
	}
	var failed []error
	for i, c := range changes {
		res.Changes[i].Outcome = Made
		if err := c.do(ctx, ids); err != nil {
			res.Changes[i].Outcome, res.Changes[i].Error = Failed, err.Error()
			failed = append(failed, fmt.Errorf("%s: %w", c.Summary[2:], err))
		}
	}
	return res, errors.Join(failed...)
}

// createSandbox makes a sandbox; byDefault is its provider's url for a file
// that gives none.
func createSandbox(api *client.API, want Sandbox, secret, byDefault string) change {
	line := fmt.Sprintf("+ sandbox %q (%s)", want.Name, want.Provider)
	if secret != "" {
		line += ", " + secretFrom(want.SecretEnv, destination(want.URL, byDefault))
	}
	body := map[string]any{"name": want.Name, "provider": want.Provider, "managed_by": ManagedBy}
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
	create := func(ctx context.Context, dryRun bool) (*client.CreateSandboxResponse, error) {
		var in client.SandboxCreate
		if err := recode(body, &in); err != nil {
			return nil, err
		}
		params := &client.CreateSandboxParams{DryRun: &dryRun}
		if !dryRun {
			params.IdempotencyKey = client.NewKey()
		}
		return client.Expect(api.CreateSandboxWithResponse(ctx, params, in))
	}
	return change{
		Change: Change{Action: "create", Kind: "sandbox", Name: want.Name, Summary: line},
		check: func(ctx context.Context) error {
			_, err := create(ctx, true)
			return err
		},
		do: func(ctx context.Context, ids map[string]string) error {
			res, err := create(ctx, false)
			if err != nil {
				return err
			}
			var v sandboxView
			if err := recode(res.JSON201, &v); err != nil {
				return err
			}
			ids[want.Name] = v.ID
			return nil
		},
	}
}

func createAgent(api *client.API, want Agent) change {
	line := fmt.Sprintf("+ agent %q", want.Name)
	if want.Sandbox != "" {
		line += fmt.Sprintf(", bound to %q", want.Sandbox)
	}
	managed := ManagedBy
	body := client.AgentCreate{Name: want.Name, Description: want.Description, Emoji: want.Emoji, Color: want.Color, ManagedBy: &managed}
	return change{
		Change: Change{Action: "create", Kind: "agent", Name: want.Name, Summary: line},
		check: func(ctx context.Context) error {
			yes := true
			_, err := client.Expect(api.CreateAgentWithResponse(ctx, &client.CreateAgentParams{DryRun: &yes}, body))
			return err
		},
		do: func(ctx context.Context, ids map[string]string) error {
			res, err := client.Expect(api.CreateAgentWithResponse(ctx, &client.CreateAgentParams{IdempotencyKey: client.NewKey()}, body))
			if err != nil {
				return err
			}
			if want.Sandbox == "" {
				return nil
			}
			return bind(ctx, api, res.JSON201.Id, want, nil, ids)
		},
	}
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
