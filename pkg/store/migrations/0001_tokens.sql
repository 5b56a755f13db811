-- Workspaces, their API tokens, and the answers kept for Idempotency-Key retries.

CREATE TABLE workspaces (
    id         {{.ID}} PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at {{.Time}} NOT NULL
);

CREATE TABLE tokens (
    id           {{.ID}} PRIMARY KEY,
    workspace_id {{.ID}} NOT NULL REFERENCES workspaces (id),
    name         TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    hash         TEXT NOT NULL UNIQUE,
    created_at   {{.Time}} NOT NULL,
    last_used_at {{.Time}},
    revoked_at   {{.Time}}
);

CREATE INDEX tokens_workspace ON tokens (workspace_id, id);

CREATE TABLE idempotency_keys (
    token_id     {{.ID}} NOT NULL REFERENCES tokens (id),
    idem_key     TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER NOT NULL DEFAULT 0,
    headers      TEXT NOT NULL DEFAULT '{}',
    body         TEXT NOT NULL DEFAULT '',
    created_at   {{.Time}} NOT NULL,
    PRIMARY KEY (token_id, idem_key)
);

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
