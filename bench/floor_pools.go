package main

import (
	"context"
	"encoding/json"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// The floor of a new thread's first run that a warm pool serves: the
// server claims a ready instance of the sandbox's pool for the new thread
// in one statement, between the view's round trip and the provider's
// (pkg/run pool.go claimAhead, store pools.go ClaimForNewThread); here
// the same statement through bare pgx. The floor makes no instances: a
// start the pool cannot serve is refused at once, so that in a burst the
// floor does less than the server, and its pooled starts are a floor below
// the server's.
const floorClaimForNewThreadSQL = `WITH pick AS (
	SELECT id FROM instances
	WHERE sandbox_id = $1 AND workspace_id = $2 AND pool_version = $3 AND thread_id IS NULL AND status = $4 AND updated_at > $5
		AND COALESCE((SELECT threads_per_agent FROM workspace_quotas WHERE workspace_id = $6), $7) <= 0
	ORDER BY updated_at LIMIT 1 FOR UPDATE SKIP LOCKED
), made AS (
	INSERT INTO threads (id, workspace_id, agent_id, thread_key, created_at, instance_id)
	SELECT $8, $9, $10, $11, $12, id FROM pick
	ON CONFLICT DO NOTHING
	RETURNING id, instance_id
)
UPDATE instances SET thread_id = made.id, updated_at = $13 FROM made WHERE instances.id = made.instance_id
RETURNING instances.*`

// claimPooled gives the agent's new thread keyed key a ready instance of
// the warm pool of sb, the sandbox bound, and returns the instance as the
// view's live instance reads: pgx.ErrNoRows when the pool has none ready.
func (f floor) claimPooled(ctx context.Context, ws, agentID, key string, sb map[string]any) (map[string]any, error) {
	// The pool's settings are the config's common block, over its defaults.
	cfg := provider.DefaultCommon()
	if raw, ok := sb["config"].(string); ok {
		_ = json.Unmarshal([]byte(raw), &cfg)
	}
	now := time.Now().UTC()
	return queryMap(ctx, f.runs, floorClaimForNewThreadSQL,
		uuidText(sb["id"]), ws, sb["version"], "live", now.Add(-time.Duration(cfg.WarmPool().MaxIdleMinutes)*time.Minute), ws, 0,
		auxilia.NewID(), ws, agentID, key, now, now)
}
