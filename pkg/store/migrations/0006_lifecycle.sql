-- Threads keep their work between runs. A live instance may be paused
-- (paused_at set): it keeps its files at the provider and its next run
-- resumes it. A thread's last activity (a run start or a tool call) decides
-- when it is idle. Kept files are a thread's working folder saved beyond its
-- instance (a snapshot, an archive, a folder); a thread uses its newest, and
-- the reaper deletes them at the provider once forget_after has passed or
-- their thread no longer points at them (thread_id NULL).

ALTER TABLE instances ADD COLUMN paused_at {{.Time}};

ALTER TABLE threads ADD COLUMN last_activity_at {{.Time}};

UPDATE threads SET last_activity_at = last_run_at;

CREATE TABLE kept_files (
    id               {{.ID}} PRIMARY KEY,
    workspace_id     {{.ID}} NOT NULL REFERENCES workspaces (id),
    sandbox_id       {{.ID}} NOT NULL REFERENCES sandboxes (id),
    thread_id        {{.ID}},
    provider_ref     TEXT NOT NULL,
    state_key_id     TEXT NOT NULL DEFAULT '',
    state_ciphertext TEXT NOT NULL DEFAULT '',
    kept_at          {{.Time}} NOT NULL,
    forget_after     {{.Time}} NOT NULL
);

CREATE INDEX kept_files_thread ON kept_files (thread_id, kept_at);
CREATE INDEX kept_files_forget ON kept_files (forget_after);
CREATE INDEX instances_idle ON instances (status, paused_at);
