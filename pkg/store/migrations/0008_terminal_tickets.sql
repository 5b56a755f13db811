-- Single-use tickets that open a run's terminal, for browsers (which cannot
-- set headers on a WebSocket): kept by the hash of their value, in the
-- database so that any replica can take one, and deleted when taken.

CREATE TABLE terminal_tickets (
    hash       TEXT PRIMARY KEY,
    token_id   {{.ID}} NOT NULL REFERENCES tokens (id),
    run_id     {{.ID}} NOT NULL,
    approved   BOOLEAN NOT NULL,
    expires_at {{.Time}} NOT NULL
);

CREATE INDEX terminal_tickets_expires ON terminal_tickets (expires_at);
