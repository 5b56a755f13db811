-- Which replica leads each background job: a lease its holder renews while
-- its pass runs, taken by another only once it has run out. Unlike a lock
-- held by a session, it outlives a connection that dies, so a replica whose
-- connection was cut cannot lose it to another while its pass runs on.

CREATE TABLE job_leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at {{.Time}} NOT NULL
);
