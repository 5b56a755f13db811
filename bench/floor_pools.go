package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// The floor of a new thread's first run that a warm pool serves: the
// server claims a ready instance of the sandbox's pool for the new thread
// in one statement, sent with the view once this process knows the agent's
// pool (pkg/run claimplans.go, store pools.go claimInViewSQL), else in a
// round trip of its own between the view's and the provider's (pkg/run
// pool.go claimAhead, store pools.go ClaimForNewThread); here the same
// statements through bare pgx. The floor makes no instances: a start the
// pool cannot serve is refused at once, so that in a burst the floor does
// less than the server, and its pooled starts are a floor below the
// server's.
var (
	floorClaimForNewThreadSQL = floorClaimSQL("", 8)
	floorClaimInViewSQL       = floorClaimSQL(`
		AND EXISTS (SELECT 1 FROM bindings JOIN sandboxes ON sandboxes.id = bindings.sandbox_id
			WHERE bindings.agent_id = $8 AND sandboxes.id = $9 AND sandboxes.version = $10 AND sandboxes.deleted_at IS NULL)
		AND NOT EXISTS (SELECT 1 FROM threads WHERE workspace_id = $11 AND agent_id = $12 AND thread_key = $13)`, 14)
)

// floorClaimSQL is the claim with its pick narrowed by guard, whose
// parameters end before next.
func floorClaimSQL(guard string, next int) string {
	n := func(i int) string { return fmt.Sprintf("$%d", next+i) }
	return `WITH pick AS (
	SELECT id FROM instances
	WHERE sandbox_id = $1 AND workspace_id = $2 AND pool_version = $3 AND thread_id IS NULL AND status = $4 AND updated_at > $5
		AND COALESCE((SELECT threads_per_agent FROM workspace_quotas WHERE workspace_id = $6), $7) <= 0` + guard + `
	ORDER BY updated_at LIMIT 1 FOR UPDATE SKIP LOCKED
), made AS (
	INSERT INTO threads (id, workspace_id, agent_id, thread_key, created_at, instance_id)
	SELECT ` + n(0) + `, ` + n(1) + `, ` + n(2) + `, ` + n(3) + `, ` + n(4) + `, id FROM pick
	ON CONFLICT DO NOTHING
	RETURNING id, instance_id
)
UPDATE instances SET thread_id = made.id, updated_at = ` + n(5) + ` FROM made WHERE instances.id = made.instance_id
RETURNING instances.*`
}

// floorPlan is the pool an agent's new threads claim from, as the
// server's claim plans remember it.
type floorPlan struct {
	sandboxID string
	version   any
	freshFor  time.Duration
}

// planOf is the plan of the agent bound to sb.
func planOf(sb map[string]any) floorPlan {
	// The pool's settings are the config's common block, over its defaults.
	cfg := provider.DefaultCommon()
	if raw, ok := sb["config"].(string); ok {
		_ = json.Unmarshal([]byte(raw), &cfg)
	}
	return floorPlan{sandboxID: uuidText(sb["id"]), version: sb["version"], freshFor: time.Duration(cfg.WarmPool().MaxIdleMinutes) * time.Minute}
}

// of tells whether the plan is the one of the agent bound to sb.
func (p floorPlan) of(sb map[string]any) bool {
	return p.sandboxID == uuidText(sb["id"]) && fmt.Sprint(p.version) == fmt.Sprint(sb["version"])
}

// queueClaim adds to b the claim the agent's plan asks its view for.
func (p floorPlan) queueClaim(b *pgx.Batch, ws, agentID, key string) {
	now := time.Now().UTC()
	b.Queue(floorClaimInViewSQL, p.sandboxID, ws, p.version, "live", now.Add(-p.freshFor), ws, 0,
		agentID, p.sandboxID, p.version, ws, agentID, key,
		auxilia.NewID(), ws, agentID, key, now, now)
}

// claimPooled gives the agent's new thread keyed key a ready instance of
// the warm pool of sb, the sandbox bound, and returns the instance as the
// view's live instance reads: pgx.ErrNoRows when the pool has none ready.
// It plans the agent's next claims.
func (f floor) claimPooled(ctx context.Context, ws, agentID, key string, sb map[string]any) (map[string]any, error) {
	plan := planOf(sb)
	f.plans.Store(agentID, plan)
	now := time.Now().UTC()
	return queryMap(ctx, f.runs, floorClaimForNewThreadSQL,
		plan.sandboxID, ws, plan.version, "live", now.Add(-plan.freshFor), ws, 0,
		auxilia.NewID(), ws, agentID, key, now, now)
}
