package run

import (
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// claimPlans remember, per agent, the warm pool its new threads' starts
// last claimed from ahead of their turn (claimAhead): its sandbox, as of
// a version, and how long the pool's instances stay fresh. With it a new
// thread's start asks its view to claim in the same round trip
// (auxilia.PoolClaim), before it has seen its agent. The database checks
// that the agent is bound still to the sandbox at that version, so a plan
// gone stale costs a claim that makes nothing, after which the start
// claims as its fresh view says, and plans again.
type claimPlans struct {
	mu    sync.Mutex
	plans map[string]claimPlan // by agent id
}

// claimPlan is the pool an agent's new threads claim from.
type claimPlan struct {
	pool     poolKey
	freshFor time.Duration // how long after it became ready an instance may be handed out
}

// claimPlansHeld bounds the agents planned for: past it the plans are
// forgotten and learnt again, each at the cost of one round trip.
const claimPlansHeld = 4096

func newClaimPlans() *claimPlans { return &claimPlans{plans: map[string]claimPlan{}} }

// ask is the claim a start of agentID's new thread asks its view for at
// now: none when the agent has no plan, or its pool was lately found empty.
func (c *claimPlans) ask(agentID string, empty *emptyPools, now time.Time) *auxilia.PoolClaim {
	c.mu.Lock()
	p, ok := c.plans[agentID]
	c.mu.Unlock()
	if !ok || empty.knownKey(p.pool, now) {
		return nil
	}
	return &auxilia.PoolClaim{SandboxID: p.pool.sandboxID, Version: p.pool.version, FreshAfter: p.freshAfter(now)}
}

// freshAfter is the oldest an instance of the plan's pool may have become
// ready and still be handed out at now.
func (p claimPlan) freshAfter(now time.Time) time.Time { return now.Add(-p.freshFor) }

// asked tells whether claim, as a view was asked it, is what plan would ask.
func (p claimPlan) asked(claim *auxilia.PoolClaim) bool {
	return claim != nil && claim.SandboxID == p.pool.sandboxID && claim.Version == p.pool.version
}

// learn remembers agentID's plan, or, when ok is false, that it has none.
func (c *claimPlans) learn(agentID string, p claimPlan, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !ok {
		delete(c.plans, agentID)
		return
	}
	if _, known := c.plans[agentID]; !known && len(c.plans) >= claimPlansHeld {
		clear(c.plans)
	}
	c.plans[agentID] = p
}
