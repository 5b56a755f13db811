-- Registered sandboxes. A deleted one keeps its row (and its sealed secret)
-- until the reaper has destroyed its instances; its name is free at once.

CREATE TABLE sandboxes (
    id                {{.ID}} PRIMARY KEY,
    workspace_id      {{.ID}} NOT NULL REFERENCES workspaces (id),
    name              TEXT NOT NULL,
    description       TEXT NOT NULL DEFAULT '',
    provider          TEXT NOT NULL,
    url               TEXT NOT NULL DEFAULT '',
    config            TEXT NOT NULL,
    secret_key_id     TEXT NOT NULL DEFAULT '',
    secret_ciphertext TEXT NOT NULL DEFAULT '',
    secret_last4      TEXT NOT NULL DEFAULT '',
    secret_length     INTEGER NOT NULL DEFAULT 0,
    health_status     TEXT NOT NULL DEFAULT 'unknown',
    health_checked_at {{.Time}},
    health_latency_ms INTEGER,
    health_detail     TEXT NOT NULL DEFAULT '',
    health_history    TEXT NOT NULL DEFAULT '[]',
    version           INTEGER NOT NULL DEFAULT 1,
    created_at        {{.Time}} NOT NULL,
    updated_at        {{.Time}} NOT NULL,
    deleted_at        {{.Time}}
);

CREATE UNIQUE INDEX sandboxes_name ON sandboxes (workspace_id, name) WHERE deleted_at IS NULL;

CREATE INDEX sandboxes_workspace ON sandboxes (workspace_id, id) WHERE deleted_at IS NULL;
