-- Runs of agents on threads. A creating instance holds a lease: past it,
-- the process that was creating it is presumed dead.

ALTER TABLE instances ADD COLUMN lease_until {{.Time}};

ALTER TABLE instances ADD COLUMN created_by_run {{.ID}};

CREATE TABLE runs (
    id               {{.ID}} PRIMARY KEY,
    workspace_id     {{.ID}} NOT NULL REFERENCES workspaces (id),
    agent_id         {{.ID}} NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    thread_id        {{.ID}} NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    status           TEXT NOT NULL CHECK (status IN ('active', 'completed', 'expired')),
    sandbox_id       {{.ID}},
    instance_id      {{.ID}},
    created_instance BOOLEAN NOT NULL DEFAULT FALSE,
    replaced         BOOLEAN NOT NULL DEFAULT FALSE,
    notice           TEXT NOT NULL DEFAULT '',
    started_at       {{.Time}} NOT NULL,
    last_activity_at {{.Time}} NOT NULL,
    ended_at         {{.Time}}
);

-- One active run per thread, held by the database.
CREATE UNIQUE INDEX runs_active ON runs (thread_id) WHERE status = 'active';

CREATE INDEX runs_thread ON runs (thread_id, id);
CREATE INDEX runs_idle ON runs (status, last_activity_at);
CREATE INDEX threads_agent ON threads (agent_id, id);
