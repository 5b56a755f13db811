-- Usage: what each instance used, kept by the database itself as the
-- instance's lifecycle changes, so every replica's transitions are metered
-- in the very statement (and so the transaction) that makes them, at no
-- extra round trip.
--
-- An interval is a stretch of one instance in one metered state: running
-- (from its creation on, being created included) or paused (from paused_at
-- until it resumes), attributed to its workspace, sandbox, provider, and,
-- once a thread has it, to that thread and its agent (a pool's instance is
-- its sandbox's until a thread claims it). An interval ends when the
-- instance changes state or thread, or is destroyed (a released instance
-- still exists at its provider until the reaper destroys it). ended_at NULL:
-- still open.
CREATE TABLE usage_intervals (
    id           {{.Serial}},
    instance_id  {{.ID}} NOT NULL,
    workspace_id {{.ID}} NOT NULL,
    sandbox_id   {{.ID}} NOT NULL,
    provider     TEXT NOT NULL,
    agent_id     {{.ID}},
    thread_id    {{.ID}},
    state        TEXT NOT NULL CHECK (state IN ('running', 'paused')),
    started_at   {{.Time}} NOT NULL,
    ended_at     {{.Time}}
);

CREATE INDEX usage_intervals_open ON usage_intervals (instance_id) WHERE ended_at IS NULL;
CREATE INDEX usage_intervals_workspace ON usage_intervals (workspace_id, started_at);

-- Counted lifecycle events: an instance created (gone live), failed (let go
-- before it was ever live) or replaced (found gone at its provider while
-- live, so its thread's next run makes another).
CREATE TABLE usage_events (
    id           {{.Serial}},
    instance_id  {{.ID}} NOT NULL,
    workspace_id {{.ID}} NOT NULL,
    sandbox_id   {{.ID}} NOT NULL,
    provider     TEXT NOT NULL,
    agent_id     {{.ID}},
    thread_id    {{.ID}},
    kind         TEXT NOT NULL CHECK (kind IN ('created', 'failed', 'replaced')),
    at           {{.Time}} NOT NULL
);

CREATE INDEX usage_events_workspace ON usage_events (workspace_id, at);

-- Instances that exist at the upgrade are metered from the start of their
-- state as the row knows it: a paused one from paused_at, a running one from
-- its last change (which may come after its state began: never more than it
-- used).
INSERT INTO usage_intervals (instance_id, workspace_id, sandbox_id, provider, agent_id, thread_id, state, started_at)
SELECT i.id, i.workspace_id, i.sandbox_id, s.provider, t.agent_id, i.thread_id,
       CASE WHEN i.paused_at IS NOT NULL THEN 'paused' ELSE 'running' END,
       CASE WHEN i.paused_at IS NOT NULL THEN i.paused_at ELSE i.updated_at END
FROM instances i
JOIN sandboxes s ON s.id = i.sandbox_id
LEFT JOIN threads t ON t.id = i.thread_id
WHERE i.status <> 'destroyed';
{{if .Postgres}}
CREATE FUNCTION usage_meter() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_state TEXT;
    new_state TEXT;
    moment     TIMESTAMPTZ;
    event_kind TEXT;
BEGIN
    new_state := CASE WHEN NEW.status = 'destroyed' THEN 'gone' WHEN NEW.paused_at IS NOT NULL THEN 'paused' ELSE 'running' END;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO usage_intervals (instance_id, workspace_id, sandbox_id, provider, agent_id, thread_id, state, started_at)
        SELECT NEW.id, NEW.workspace_id, NEW.sandbox_id, s.provider, (SELECT t.agent_id FROM threads t WHERE t.id = NEW.thread_id),
               NEW.thread_id, new_state, NEW.created_at
        FROM sandboxes s WHERE s.id = NEW.sandbox_id AND new_state <> 'gone';
        RETURN NULL;
    END IF;
    old_state := CASE WHEN OLD.status = 'destroyed' THEN 'gone' WHEN OLD.paused_at IS NOT NULL THEN 'paused' ELSE 'running' END;
    moment := CASE WHEN OLD.paused_at IS NULL AND NEW.paused_at IS NOT NULL THEN NEW.paused_at ELSE NEW.updated_at END;
    IF old_state <> new_state OR OLD.thread_id IS DISTINCT FROM NEW.thread_id THEN
        UPDATE usage_intervals SET ended_at = moment WHERE instance_id = NEW.id AND ended_at IS NULL;
        INSERT INTO usage_intervals (instance_id, workspace_id, sandbox_id, provider, agent_id, thread_id, state, started_at)
        SELECT NEW.id, NEW.workspace_id, NEW.sandbox_id, s.provider, (SELECT t.agent_id FROM threads t WHERE t.id = NEW.thread_id),
               NEW.thread_id, new_state, moment
        FROM sandboxes s WHERE s.id = NEW.sandbox_id AND new_state <> 'gone';
    END IF;
    event_kind := CASE
        WHEN OLD.status = 'creating' AND NEW.status = 'live' THEN 'created'
        WHEN OLD.status = 'creating' AND NEW.status IN ('released', 'destroyed') THEN 'failed'
        WHEN OLD.status = 'live' AND NEW.status = 'destroyed' THEN 'replaced'
    END;
    IF event_kind IS NOT NULL THEN
        INSERT INTO usage_events (instance_id, workspace_id, sandbox_id, provider, agent_id, thread_id, kind, at)
        SELECT NEW.id, NEW.workspace_id, NEW.sandbox_id, s.provider, (SELECT t.agent_id FROM threads t WHERE t.id = NEW.thread_id),
               NEW.thread_id, event_kind, NEW.updated_at
        FROM sandboxes s WHERE s.id = NEW.sandbox_id;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER usage_meter AFTER INSERT OR UPDATE ON instances FOR EACH ROW EXECUTE FUNCTION usage_meter();
{{else}}
CREATE TRIGGER usage_instance_made AFTER INSERT ON instances
BEGIN
    INSERT INTO usage_intervals (instance_id, workspace_id, sandbox_id, provider, agent_id, thread_id, state, started_at)
    SELECT NEW.id, NEW.workspace_id, NEW.sandbox_id, s.provider, (SELECT t.agent_id FROM threads t WHERE t.id = NEW.thread_id),
           NEW.thread_id, CASE WHEN NEW.paused_at IS NOT NULL THEN 'paused' ELSE 'running' END, NEW.created_at
    FROM sandboxes s WHERE s.id = NEW.sandbox_id AND NEW.status <> 'destroyed';
END;

CREATE TRIGGER usage_instance_changed AFTER UPDATE ON instances
WHEN (CASE WHEN OLD.status = 'destroyed' THEN 'gone' WHEN OLD.paused_at IS NOT NULL THEN 'paused' ELSE 'running' END)
     <> (CASE WHEN NEW.status = 'destroyed' THEN 'gone' WHEN NEW.paused_at IS NOT NULL THEN 'paused' ELSE 'running' END)
  OR OLD.thread_id IS NOT NEW.thread_id
BEGIN
    UPDATE usage_intervals
    SET ended_at = CASE WHEN OLD.paused_at IS NULL AND NEW.paused_at IS NOT NULL THEN NEW.paused_at ELSE NEW.updated_at END
    WHERE instance_id = NEW.id AND ended_at IS NULL;
    INSERT INTO usage_intervals (instance_id, workspace_id, sandbox_id, provider, agent_id, thread_id, state, started_at)
    SELECT NEW.id, NEW.workspace_id, NEW.sandbox_id, s.provider, (SELECT t.agent_id FROM threads t WHERE t.id = NEW.thread_id),
           NEW.thread_id, CASE WHEN NEW.paused_at IS NOT NULL THEN 'paused' ELSE 'running' END,
           CASE WHEN OLD.paused_at IS NULL AND NEW.paused_at IS NOT NULL THEN NEW.paused_at ELSE NEW.updated_at END
    FROM sandboxes s WHERE s.id = NEW.sandbox_id AND NEW.status <> 'destroyed';
END;

CREATE TRIGGER usage_instance_event AFTER UPDATE OF status ON instances
WHEN (OLD.status = 'creating' AND NEW.status IN ('live', 'released', 'destroyed'))
  OR (OLD.status = 'live' AND NEW.status = 'destroyed')
BEGIN
    INSERT INTO usage_events (instance_id, workspace_id, sandbox_id, provider, agent_id, thread_id, kind, at)
    SELECT NEW.id, NEW.workspace_id, NEW.sandbox_id, s.provider, (SELECT t.agent_id FROM threads t WHERE t.id = NEW.thread_id),
           NEW.thread_id,
           CASE WHEN NEW.status = 'live' THEN 'created' WHEN OLD.status = 'creating' THEN 'failed' ELSE 'replaced' END,
           NEW.updated_at
    FROM sandboxes s WHERE s.id = NEW.sandbox_id;
END;
{{end}}
