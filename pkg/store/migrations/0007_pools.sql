-- Warm pools: instances made ahead of any thread, from one version of their
-- sandbox, and each pool's run of failed creates.

-- The sandbox version a pool's instance was made from; NULL for an instance
-- made for a thread. A pool instance no thread has claimed has no thread_id.
ALTER TABLE instances ADD COLUMN pool_version INTEGER;

CREATE INDEX instances_pool ON instances (sandbox_id, pool_version, status, updated_at)
    WHERE pool_version IS NOT NULL AND thread_id IS NULL;

-- failures counts the creates that failed in a row for the sandbox's
-- version; the pool waits until retry_at, and stops at stopped_at until the
-- sandbox is edited or probed healthy.
CREATE TABLE pools (
    sandbox_id   {{.ID}} PRIMARY KEY REFERENCES sandboxes (id) ON DELETE CASCADE,
    version      INTEGER NOT NULL,
    failures     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT NOT NULL DEFAULT '',
    retry_at     {{.Time}},
    stopped_at   {{.Time}},
    updated_at   {{.Time}} NOT NULL
);
