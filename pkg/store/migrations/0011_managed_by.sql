-- What manages a sandbox or an agent: '' for one made in the console or over
-- the API, a tool's name (such as auxilia-apply) for one a tool made with
-- the Auxilia-Managed-By header. Such a tool deletes (prunes) only what it
-- manages; everything made before this step is managed by no tool.

ALTER TABLE sandboxes ADD COLUMN managed_by TEXT NOT NULL DEFAULT '';

ALTER TABLE agents ADD COLUMN managed_by TEXT NOT NULL DEFAULT '';
