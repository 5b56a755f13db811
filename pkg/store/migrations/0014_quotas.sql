-- Quotas the operator sets on a workspace (auxilia quotas set): a NULL
-- limit is left to the server's default (AUXILIA_QUOTA_*), 0 is no limit.
-- alerted_* is the highest alert level (80, 100; 0 for none) the use last
-- reached, so that each crossing is announced once.

CREATE TABLE workspace_quotas (
    workspace_id           {{.ID}} PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
    instances              INTEGER CHECK (instances >= 0),
    instance_hours         INTEGER CHECK (instance_hours >= 0),
    threads_per_agent      INTEGER CHECK (threads_per_agent >= 0),
    alerted_instances      INTEGER NOT NULL DEFAULT 0,
    alerted_instance_hours INTEGER NOT NULL DEFAULT 0,
    updated_at             {{.Time}} NOT NULL
);

-- The live instances of a workspace, counted under its quota's lock.
CREATE INDEX instances_workspace_status ON instances (workspace_id, status);
