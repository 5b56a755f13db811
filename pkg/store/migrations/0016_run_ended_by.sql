-- What ended each run, so that its console can say why instead of
-- guessing: its caller (End run, or its MCP session closing), a newer run
-- on its thread, idleness, its sandbox's delete, or its agent losing or
-- changing sandbox. NULL: still active, or ended before this was kept.

ALTER TABLE runs ADD COLUMN ended_by TEXT CHECK (ended_by IN ('caller', 'newer_run', 'idle', 'sandbox_deleted', 'agent_unbound'));
