-- Requests per token per minute, shared by every replica.

CREATE TABLE rate_windows (
    token_id     {{.ID}} NOT NULL,
    window_start {{.Time}} NOT NULL,
    hits         INTEGER NOT NULL,
    PRIMARY KEY (token_id, window_start)
);
