package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
)

// BenchmarkClaimUnderQuotas is a new thread's claim of an instance (its
// thread's lock and the claim, in one transaction) on Postgres, without
// quotas and with both instance quotas set (never reached): what the check
// under the workspace's lock adds to a cold start. A warm start claims
// nothing, so checks nothing.
func BenchmarkClaimUnderQuotas(b *testing.B) {
	for _, c := range []struct {
		name   string
		quotas auxilia.Quotas
	}{{"none", auxilia.Quotas{}}, {"instances_and_threads", auxilia.Quotas{Instances: 1 << 30, ThreadsPerAgent: 1 << 30}}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			db := storetest.Open(b, store.Postgres)
			db.SetQuotaDefaults(c.quotas)
			ws, err := db.Workspaces().Ensure(ctx, "acme")
			if err != nil {
				b.Fatal(err)
			}
			db.CheckSandboxesWith(refuseNamed(""))
			sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "box"), auxilia.SealedSecret{})
			if err != nil {
				b.Fatal(err)
			}
			agent, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Bench"}})
			if err != nil {
				b.Fatal(err)
			}
			f := quotaFixture{ws: ws, sb: sb, agent: agent}
			b.ResetTimer()
			for i := range b.N {
				if _, err := f.claim(db, agent.ID, fmt.Sprintf("t%d", i)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
		})
	}
}
