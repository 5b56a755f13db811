-- Agents, their sandbox bindings (one per agent, by the primary key), the
-- conversation threads they run on, the provider instances those threads
-- use, and the audit log.

CREATE TABLE agents (
    id           {{.ID}} PRIMARY KEY,
    workspace_id {{.ID}} NOT NULL REFERENCES workspaces (id),
    name         TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    emoji        TEXT NOT NULL DEFAULT '',
    color        TEXT NOT NULL DEFAULT '',
    version      INTEGER NOT NULL DEFAULT 1,
    created_at   {{.Time}} NOT NULL,
    updated_at   {{.Time}} NOT NULL
);

CREATE INDEX agents_workspace ON agents (workspace_id, id);

CREATE TABLE bindings (
    agent_id   {{.ID}} PRIMARY KEY REFERENCES agents (id) ON DELETE CASCADE,
    sandbox_id {{.ID}} NOT NULL REFERENCES sandboxes (id),
    tools      TEXT NOT NULL,
    created_at {{.Time}} NOT NULL,
    updated_at {{.Time}} NOT NULL
);

CREATE INDEX bindings_sandbox ON bindings (sandbox_id, agent_id);

CREATE TABLE threads (
    id           {{.ID}} PRIMARY KEY,
    workspace_id {{.ID}} NOT NULL REFERENCES workspaces (id),
    agent_id     {{.ID}} NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    thread_key   TEXT NOT NULL,
    instance_id  {{.ID}},
    last_run_at  {{.Time}},
    created_at   {{.Time}} NOT NULL,
    UNIQUE (agent_id, thread_key)
);

-- An instance outlives its thread: once released (its thread, agent or
-- sandbox gone, or replaced) the reaper destroys it at the provider.
CREATE TABLE instances (
    id               {{.ID}} PRIMARY KEY,
    workspace_id     {{.ID}} NOT NULL REFERENCES workspaces (id),
    sandbox_id       {{.ID}} NOT NULL REFERENCES sandboxes (id),
    thread_id        {{.ID}},
    provider_ref     TEXT NOT NULL DEFAULT '',
    work_dir         TEXT NOT NULL DEFAULT '',
    state_key_id     TEXT NOT NULL DEFAULT '',
    state_ciphertext TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL CHECK (status IN ('creating', 'live', 'released', 'destroyed')),
    created_at       {{.Time}} NOT NULL,
    updated_at       {{.Time}} NOT NULL
);

CREATE INDEX instances_sandbox ON instances (sandbox_id, status);
CREATE INDEX instances_status ON instances (status, updated_at);

CREATE TABLE audit_entries (
    id            {{.ID}} PRIMARY KEY,
    workspace_id  {{.ID}},
    at            {{.Time}} NOT NULL,
    token_id      TEXT NOT NULL DEFAULT '',
    token_name    TEXT NOT NULL DEFAULT '',
    action        TEXT NOT NULL,
    resource_type TEXT NOT NULL,
    resource_id   TEXT NOT NULL DEFAULT '',
    outcome       TEXT NOT NULL,
    detail        TEXT NOT NULL DEFAULT ''
);

CREATE INDEX audit_entries_workspace ON audit_entries (workspace_id, id);
CREATE INDEX audit_entries_resource ON audit_entries (workspace_id, resource_type, resource_id, id);
