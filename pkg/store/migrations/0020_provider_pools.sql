-- Warm pools a provider keeps itself (a Kubernetes SandboxWarmPool): how
-- each stood when the pool job last told its provider the size, for the
-- sandbox's view, which does not call the provider. A row is also how the
-- pool job knows a pool is out there to remove once the sandbox is
-- deleted (sandboxes are kept, marked deleted) or its size set to 0; it
-- goes when the provider has removed it.
CREATE TABLE provider_pools (
    sandbox_id   {{.ID}} PRIMARY KEY REFERENCES sandboxes (id) ON DELETE CASCADE,
    version      INTEGER NOT NULL,
    size         INTEGER NOT NULL,
    ready        INTEGER NOT NULL,
    creating     INTEGER NOT NULL,
    observed_at  {{.Time}} NOT NULL
);
