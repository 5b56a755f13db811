-- More usage, attributed as instance time is (workspace, sandbox, provider,
-- and the agent and thread of the run or of the kept files):
--
-- usage_commands: each command the execute tool ran, from the moment it was
-- sent to the moment its answer came, written in one statement once it
-- answered.
CREATE TABLE usage_commands (
    id           {{.Serial}},
    run_id       {{.ID}} NOT NULL,
    workspace_id {{.ID}} NOT NULL,
    sandbox_id   {{.ID}} NOT NULL,
    provider     TEXT NOT NULL,
    agent_id     {{.ID}},
    thread_id    {{.ID}},
    started_at   {{.Time}} NOT NULL,
    ended_at     {{.Time}} NOT NULL
);

CREATE INDEX usage_commands_workspace ON usage_commands (workspace_id, started_at);

-- usage_terminals: each interactive terminal, from its opening to its
-- closing. seen_at is renewed by the open terminal's own keep-alive; a
-- terminal whose server died is never closed, and counts only until it was
-- last seen.
CREATE TABLE usage_terminals (
    id           {{.ID}} PRIMARY KEY,
    run_id       {{.ID}} NOT NULL,
    workspace_id {{.ID}} NOT NULL,
    sandbox_id   {{.ID}} NOT NULL,
    provider     TEXT NOT NULL,
    agent_id     {{.ID}},
    thread_id    {{.ID}},
    started_at   {{.Time}} NOT NULL,
    seen_at      {{.Time}} NOT NULL,
    ended_at     {{.Time}}
);

CREATE INDEX usage_terminals_workspace ON usage_terminals (workspace_id, started_at);

-- Kept files' size, as their provider reported it (0: unknown).
ALTER TABLE kept_files ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0;

-- usage_kept: each kept files' bytes from the moment they were kept until
-- the reaper deleted them at their provider (ended_at, set in the
-- transaction that deletes their row). The row outlives its kept files.
CREATE TABLE usage_kept (
    kept_id      {{.ID}} PRIMARY KEY,
    workspace_id {{.ID}} NOT NULL,
    sandbox_id   {{.ID}} NOT NULL,
    provider     TEXT NOT NULL,
    agent_id     {{.ID}},
    thread_id    {{.ID}},
    bytes        BIGINT NOT NULL,
    started_at   {{.Time}} NOT NULL,
    ended_at     {{.Time}}
);

CREATE INDEX usage_kept_workspace ON usage_kept (workspace_id, started_at);

INSERT INTO usage_kept (kept_id, workspace_id, sandbox_id, provider, agent_id, thread_id, bytes, started_at)
SELECT k.id, k.workspace_id, k.sandbox_id, s.provider, t.agent_id, k.thread_id, k.bytes, k.kept_at
FROM kept_files k
JOIN sandboxes s ON s.id = k.sandbox_id
LEFT JOIN threads t ON t.id = k.thread_id;
{{if .Postgres}}
CREATE FUNCTION usage_kept_meter() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO usage_kept (kept_id, workspace_id, sandbox_id, provider, agent_id, thread_id, bytes, started_at)
    SELECT NEW.id, NEW.workspace_id, NEW.sandbox_id, s.provider, (SELECT t.agent_id FROM threads t WHERE t.id = NEW.thread_id),
           NEW.thread_id, NEW.bytes, NEW.kept_at
    FROM sandboxes s WHERE s.id = NEW.sandbox_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER usage_kept_meter AFTER INSERT ON kept_files FOR EACH ROW EXECUTE FUNCTION usage_kept_meter();
{{else}}
CREATE TRIGGER usage_kept_meter AFTER INSERT ON kept_files
BEGIN
    INSERT INTO usage_kept (kept_id, workspace_id, sandbox_id, provider, agent_id, thread_id, bytes, started_at)
    SELECT NEW.id, NEW.workspace_id, NEW.sandbox_id, s.provider, (SELECT t.agent_id FROM threads t WHERE t.id = NEW.thread_id),
           NEW.thread_id, NEW.bytes, NEW.kept_at
    FROM sandboxes s WHERE s.id = NEW.sandbox_id;
END;
{{end}}
-- usage_hours: every closed hour's usage, per workspace, sandbox, provider,
-- agent and thread, summed from the rows above and usage_intervals and
-- usage_events by one replica at a time. usage_rolled_hours holds the hours
-- rolled up, each inserted in the transaction that writes its sums, so an
-- hour is rolled up once: reports read the sums for these hours and the
-- rows themselves for the others.
CREATE TABLE usage_hours (
    hour              {{.Time}} NOT NULL,
    workspace_id      {{.ID}} NOT NULL,
    sandbox_id        {{.ID}} NOT NULL,
    provider          TEXT NOT NULL,
    agent_id          {{.ID}},
    thread_id         {{.ID}},
    running_seconds   DOUBLE PRECISION NOT NULL,
    paused_seconds    DOUBLE PRECISION NOT NULL,
    created           INTEGER NOT NULL,
    failed            INTEGER NOT NULL,
    replaced          INTEGER NOT NULL,
    commands          INTEGER NOT NULL,
    command_seconds   DOUBLE PRECISION NOT NULL,
    terminal_seconds  DOUBLE PRECISION NOT NULL,
    kept_byte_seconds DOUBLE PRECISION NOT NULL
);

CREATE INDEX usage_hours_workspace ON usage_hours (workspace_id, hour);

CREATE TABLE usage_rolled_hours (
    hour      {{.Time}} PRIMARY KEY,
    rolled_at {{.Time}} NOT NULL
);
