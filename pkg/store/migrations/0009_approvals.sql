-- Tool calls that need a person's approval, asked for when a call came
-- without one, and what a person decided. A decision is used once, by the
-- next call of the same thread, tool and arguments (its fingerprint).

CREATE TABLE approvals (
    id            {{.ID}} PRIMARY KEY,
    workspace_id  {{.ID}} NOT NULL REFERENCES workspaces (id),
    run_id        {{.ID}} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    thread_id     {{.ID}} NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    tool          TEXT NOT NULL,
    arguments     TEXT NOT NULL,
    arguments_cut BOOLEAN NOT NULL DEFAULT FALSE,
    fingerprint   TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
    requested_by  TEXT NOT NULL,
    via           TEXT NOT NULL,
    requested_at  {{.Time}} NOT NULL,
    decided_by    TEXT NOT NULL DEFAULT '',
    decided_at    {{.Time}},
    used_at       {{.Time}}
);

-- One pending approval for a call, however often it is repeated.
CREATE UNIQUE INDEX approvals_pending ON approvals (thread_id, tool, fingerprint) WHERE status = 'pending';

CREATE INDEX approvals_thread ON approvals (thread_id, requested_at);
