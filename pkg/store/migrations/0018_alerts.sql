-- Alerts for every quota and for an estimated-cost budget, and the outbox
-- of their webhook deliveries.
--
-- cost_budget is the estimated cost a workspace may reach per calendar month
-- (UTC), in the currency of the operator's rates: NULL leaves it to the
-- server's default (AUXILIA_BUDGET_COST), 0 is none. It alerts, it refuses
-- nothing. alerted_* is the alert level (80, 100; 0 for none) each use last
-- reached, so that each crossing is announced once.

ALTER TABLE workspace_quotas ADD COLUMN cost_budget DOUBLE PRECISION CHECK (cost_budget >= 0);
ALTER TABLE workspace_quotas ADD COLUMN alerted_threads_per_agent INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspace_quotas ADD COLUMN alerted_cost_budget INTEGER NOT NULL DEFAULT 0;

-- Each alert announced, written in the transaction that recorded its level,
-- and its delivery to the operator's webhook: pending until delivered, or
-- failed once the deliverer gave up; off when no webhook was set. The
-- deliverer (one replica at a time) takes the pending ones whose next
-- attempt is due, so retries outlive a restart.
CREATE TABLE alerts (
    id              {{.ID}} PRIMARY KEY,
    workspace_id    {{.ID}} NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    subject         TEXT NOT NULL,
    level           INTEGER NOT NULL,
    used            DOUBLE PRECISION NOT NULL,
    limit_value     DOUBLE PRECISION NOT NULL,
    detail          TEXT NOT NULL,
    created_at      {{.Time}} NOT NULL,
    delivery        TEXT NOT NULL CHECK (delivery IN ('off', 'pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    next_attempt_at {{.Time}},
    delivered_at    {{.Time}}
);

CREATE INDEX alerts_workspace_created ON alerts (workspace_id, created_at);
CREATE INDEX alerts_due ON alerts (delivery, next_attempt_at);
