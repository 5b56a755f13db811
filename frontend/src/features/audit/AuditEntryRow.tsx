import type { components } from "../../api/schema.gen";
import { Pill } from "../../ui/Pill";
import { formatDateSeconds } from "../../ui/time";
import { ResourceLink } from "./ResourceLink";

type AuditEntry = components["schemas"]["AuditEntry"];

const outcomeTone = { success: "ok", denied: "danger", invalid: "warn", conflict: "warn", error: "danger" } as const;

/** One entry: a summary line that opens to its detail, ids and resource link. */
export function AuditEntryRow({ entry }: { entry: AuditEntry }) {
  // A person signed in to the console, else the token (a machine's).
  const who = entry.actor.user_name || entry.actor.token_name || "unknown token";
  return (
    <li className="audit-entry">
      <details>
        <summary className="audit-entry__summary">
          <time dateTime={entry.at} className="audit-entry__time">
            {formatDateSeconds(entry.at)}
          </time>
          <span className="audit-entry__action">{entry.action}</span>
          <Pill tone={outcomeTone[entry.outcome]}>{entry.outcome}</Pill>
          <span className="audit-entry__who truncate">by {who}</span>
          {entry.detail && (
            <span className="audit-entry__what truncate" title={entry.detail}>
              {entry.detail}
            </span>
          )}
        </summary>
        <div className="audit-entry__detail">
          <p className="audit-entry__text">{entry.detail || "No detail recorded."}</p>
          <dl className="audit-entry__facts">
            <dt>When</dt>
            <dd>{new Date(entry.at).toISOString()}</dd>
            <dt>Who</dt>
            <dd>
              {who}
              {entry.actor.token_id && <code> {entry.actor.token_id}</code>}
              {entry.actor.user_id && <code> {entry.actor.user_id}</code>}
            </dd>
            <dt>Resource</dt>
            <dd>
              {entry.resource_type} {entry.resource_id && <code>{entry.resource_id}</code>}
            </dd>
          </dl>
          <ResourceLink type={entry.resource_type} id={entry.resource_id} />
        </div>
      </details>
    </li>
  );
}
