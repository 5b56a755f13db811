package store

import (
	"cmp"
	"context"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
)

// CallView reads, in one round trip without a lock, what a tool call of
// the run looks at first: the run, its agent with its binding, the sandbox
// that agent is bound to, sealed secret and all, and the run's instance.
// The reads name the run, not what it points at, so that none waits for
// another's answer. A run that is not the workspace's is CodeNotFound.
func (s runTable) CallView(ctx context.Context, workspaceID, runID string) (auxilia.CallView, error) {
	var (
		v     auxilia.CallView
		run   runView
		agent agentBindingView
		sb    sandboxRow
		inst  instanceRow
		found bool
	)
	ofRun, inWorkspace := []any{workspaceID, runID}, []any{workspaceID, workspaceID, runID}
	err := s.db.readAll(ctx,
		read{runViewSQL, ofRun, func(scan func(...any) error) error {
			found = true
			return scan(run.scanTargets()...)
		}},
		read{agentOfRunSQL, inWorkspace, func(scan func(...any) error) error { return scan(agent.scanTargets()...) }},
		read{sandboxOfRunSQL, inWorkspace, func(scan func(...any) error) error { return scan(sb.scanTargets()...) }},
		read{instanceOfRunSQL, ofRun, func(scan func(...any) error) error {
			v.HasInstance = true
			return scan(inst.scanTargets()...)
		}})
	if err = withContextError(ctx, err); err != nil || !found {
		return auxilia.CallView{}, notFound(cmp.Or(err, gorm.ErrRecordNotFound), "run")
	}
	v.Run, v.Agent = run.domain(), agent.domain()
	if sb.ID != "" {
		v.Sandbox, v.Sealed = sb.domain(), sb.sealed()
	}
	if v.HasInstance {
		v.Instance = inst.domain()
	}
	return v, nil
}

// runOf picks the run the call view's reads name, by its workspace and id.
const runOf = "(SELECT %s FROM runs WHERE workspace_id = ? AND id = ?)"

var (
	// runViewSQL reads a run as Get does (runView).
	runViewSQL = "SELECT " + qualified("runs", runColumns) + ", threads.thread_key, sandboxes.name, " +
		"sandboxes.deleted_at, sandboxes.provider, instances.provider_ref FROM runs " +
		"JOIN threads ON threads.id = runs.thread_id " +
		"LEFT JOIN sandboxes ON sandboxes.id = runs.sandbox_id " +
		"LEFT JOIN instances ON instances.id = runs.instance_id " +
		"WHERE runs.workspace_id = ? AND runs.id = ? LIMIT 1"
	agentOfRunSQL = agentWithBindingSelect + "WHERE agents.workspace_id = ? AND agents.id = " +
		fmt.Sprintf(runOf, "agent_id") + " LIMIT 1"
	sandboxOfRunSQL = boundSandboxSelect + " WHERE sandboxes.workspace_id = ? AND bindings.agent_id = " +
		fmt.Sprintf(runOf, "agent_id") + " AND sandboxes.deleted_at IS NULL LIMIT 1"
	instanceOfRunSQL = "SELECT " + instanceColumns + " FROM instances WHERE id = " + fmt.Sprintf(runOf, "instance_id") + " LIMIT 1"
)

// scanTargets are runView's fields, in the order of runViewSQL's columns.
func (r *runView) scanTargets() []any {
	return []any{&r.ID, &r.WorkspaceID, &r.AgentID, &r.ThreadID, &r.Status, &r.SandboxID, &r.InstanceID,
		&r.CreatedInstance, &r.Replaced, &r.Notice, &r.StartedAt, &r.LastActivityAt, &r.EndedAt, &r.EndedBy,
		&r.ThreadKey, &r.SandboxName, &r.SandboxDeletedAt, &r.Provider, &r.InstanceRef}
}
