-- Run starts refused because the agent's sandbox could not be used, kept
-- with their thread: the thread's page lists each with the notice its
-- caller was shown. The sandbox's name is copied, and its id not a foreign
-- key, so that a failure still names a sandbox deleted since.

CREATE TABLE start_failures (
    id           {{.ID}} PRIMARY KEY,
    workspace_id {{.ID}} NOT NULL REFERENCES workspaces (id),
    thread_id    {{.ID}} NOT NULL REFERENCES threads (id) ON DELETE CASCADE,
    sandbox_id   {{.ID}},
    sandbox_name TEXT NOT NULL,
    reason       TEXT NOT NULL,
    notice       TEXT NOT NULL,
    failed_at    {{.Time}} NOT NULL
);

CREATE INDEX start_failures_thread ON start_failures (thread_id, id);
