-- Who may grant the approvals a binding's tools need (anyone, someone other
-- than the caller, an admin), and whether the caller's own word on the call
-- counts; bindings made before keep today's rule. An approval remembers the
-- identity of who asked (a token's id; '' for the command line): whether a
-- grant comes from someone else is judged by it, never by a name. Those
-- asked for before this step have none: any token may grant them, as before.

ALTER TABLE bindings ADD COLUMN approval_granted_by TEXT NOT NULL DEFAULT 'anyone'
    CHECK (approval_granted_by IN ('anyone', 'someone_else', 'admin'));

ALTER TABLE bindings ADD COLUMN approval_with_call BOOLEAN NOT NULL DEFAULT TRUE;

ALTER TABLE approvals ADD COLUMN requested_by_id TEXT NOT NULL DEFAULT '';
