-- People who sign in with the identity provider (OpenID Connect), the
-- workspaces their groups give them, and their console sessions. A
-- membership is rewritten from the provider's claims at every sign-in and
-- refresh; a session is kept by the hash of its cookie, never the cookie,
-- and its refresh token sealed.

CREATE TABLE users (
    id              {{.ID}} PRIMARY KEY,
    issuer          TEXT NOT NULL,
    subject         TEXT NOT NULL,
    email           TEXT NOT NULL DEFAULT '',
    name            TEXT NOT NULL DEFAULT '',
    created_at      {{.Time}} NOT NULL,
    last_sign_in_at {{.Time}} NOT NULL,
    UNIQUE (issuer, subject)
);

CREATE TABLE memberships (
    user_id      {{.ID}} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    workspace_id {{.ID}} NOT NULL REFERENCES workspaces (id),
    role         TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    updated_at   {{.Time}} NOT NULL,
    PRIMARY KEY (user_id, workspace_id)
);

CREATE INDEX memberships_workspace ON memberships (workspace_id, user_id);

CREATE TABLE sessions (
    id              {{.ID}} PRIMARY KEY,
    hash            TEXT NOT NULL UNIQUE,
    user_id         {{.ID}} NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    workspace_id    {{.ID}} NOT NULL REFERENCES workspaces (id),
    csrf_hash       TEXT NOT NULL,
    refresh_key_id  TEXT NOT NULL DEFAULT '',
    refresh_token   TEXT NOT NULL DEFAULT '',
    created_at      {{.Time}} NOT NULL,
    last_seen_at    {{.Time}} NOT NULL,
    refreshed_at    {{.Time}} NOT NULL,
    expires_at      {{.Time}} NOT NULL,
    revoked_at      {{.Time}}
);

CREATE INDEX sessions_user ON sessions (user_id);

-- A terminal ticket is asked for by a token, or by a person's session (the
-- WebSocket that takes it must then carry that session's cookie). Tickets
-- live seconds: the table is made anew rather than altered.
DROP TABLE terminal_tickets;

CREATE TABLE terminal_tickets (
    hash       TEXT PRIMARY KEY,
    token_id   {{.ID}} REFERENCES tokens (id),
    session_id {{.ID}} REFERENCES sessions (id),
    run_id     {{.ID}} NOT NULL,
    approved   BOOLEAN NOT NULL,
    expires_at {{.Time}} NOT NULL,
    CHECK ((token_id IS NULL) <> (session_id IS NULL))
);

CREATE INDEX terminal_tickets_expires ON terminal_tickets (expires_at);

-- Who made each change: the person signed in, beside the token for machines.
ALTER TABLE audit_entries ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
ALTER TABLE audit_entries ADD COLUMN user_name TEXT NOT NULL DEFAULT '';

-- The person who made a token in the console ('' for the command line).
ALTER TABLE tokens ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
