package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// bound is an agent of the server bound to a sandbox ("" for none).
func bound(id, name, sandbox, managedBy string) agentView {
	a := agentView{ID: id, Name: name, ManagedBy: managedBy}
	if sandbox != "" {
		a.Sandbox = &struct {
			SandboxID string            `json:"sandbox_id"`
			Name      string            `json:"name"`
			Tools     map[string]string `json:"tools"`
			Approval  struct {
				GrantedBy string `json:"granted_by"`
				WithCall  bool   `json:"with_call"`
			} `json:"approval"`
		}{Name: sandbox}
	}
	return a
}

// Prune plans to delete only what apply made that the file no longer has,
// and refuses a sandbox an agent would still use once the file is applied:
// one that stays bound to it, but not one pruned or moved elsewhere.
func TestPruneDeletesOnlyWhatApplyMade(t *testing.T) {
	s := &state{
		sandboxes: map[string]sandboxView{
			"Console": {ID: "2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0001", Name: "Console", Provider: "local"},
			"Old":     {ID: "2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0002", Name: "Old", Provider: "local", ManagedBy: ManagedBy},
			"Kept":    {ID: "2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0003", Name: "Kept", Provider: "local", ManagedBy: ManagedBy},
			"Used":    {ID: "2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0004", Name: "Used", Provider: "local", ManagedBy: ManagedBy},
			"Other":   {ID: "2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0005", Name: "Other", Provider: "local", ManagedBy: "another-tool"},
		},
		agents: map[string]agentView{
			"Gone":    bound("2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0011", "Gone", "Old", ManagedBy),
			"Helper":  bound("2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0012", "Helper", "Used", ""),
			"Mover":   bound("2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0013", "Mover", "Old", ManagedBy),
			"Console": bound("2f6c1c1e-56a4-4b8e-9d57-0c8f1b1a0014", "Console", "", ""),
		},
	}
	f := &File{
		Sandboxes: []Sandbox{{Name: "Kept", Provider: "local"}},
		Agents:    []Agent{{Name: "Mover", Sandbox: "Kept"}},
	}
	var lines []string
	refusals := map[string]string{}
	for _, c := range plan(nil, f, s, Options{Prune: true}) {
		lines = append(lines, c.Summary)
		if c.refusal != "" {
			refusals[c.Name] = c.refusal
		}
	}
	assert.Equal(t, []string{
		`~ agent "Mover": bound to "Kept", not "Old"`,
		`- agent "Gone"`,
		`- sandbox "Old"`,
		`- sandbox "Used"`,
	}, lines, "what apply did not make (Console, Helper, Other) is never pruned")
	assert.Equal(t, map[string]string{"Used": `sandbox_in_use: still used by agent(s) "Helper"`}, refusals,
		"Old is free once Gone is deleted and Mover moves to Kept")
}
