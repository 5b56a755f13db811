import { SlidersHorizontal } from "lucide-react";
import { type FormEvent, useState } from "react";
import type { components } from "../../api/schema.gen";
import type { Token } from "../../api/types";
import { Button } from "../../ui/Button";
import { Field } from "../../ui/Field";
import { useNarrow } from "../../ui/useNarrow";
import { filterNames, fromLocalInput, toLocalInput, type AuditFilters } from "./filters";

type AuditEntry = components["schemas"]["AuditEntry"];

// The lists the API accepts, as the spec declares them.
const resourceTypes: AuditEntry["resource_type"][] = ["sandbox", "agent", "binding", "token", "thread", "run", "key", "quota", "user"];
const outcomes: AuditEntry["outcome"][] = ["success", "denied", "invalid", "conflict", "error"];
export const auditActions = [
  "agent.create", "agent.update", "agent.delete", "alert.failed", "binding.put", "binding.delete", "key.rotate", "mcp.call",
  "quota.alert", "quota.pause", "quota.set", "run.start", "run.complete", "sandbox.create", "sandbox.update", "sandbox.delete", "sandbox.probe", "sandbox.network",
  "session.signin", "session.signout",
  "terminal.ticket", "terminal.opened", "terminal.reattached", "terminal.closed",
  "thread.delete", "token.create", "token.revoke", "tool.approve",
] as const;

interface AuditFilterFormProps {
  filters: AuditFilters;
  tokens: Token[];
  /** The server's complaints, by parameter name. */
  errors: Partial<Record<string, string[]>>;
  onApply: (filters: AuditFilters) => void;
}

/**
 * The filters, applied together when submitted. On a narrow window they fold
 * behind a button that counts those in force, open where one is refused.
 */
export function AuditFilterForm({ filters, tokens, errors, onApply }: AuditFilterFormProps) {
  const narrow = useNarrow();
  const [unfolded, setUnfolded] = useState(() => Object.values(errors).some((e) => e?.length));
  const inForce = filterNames.filter((name) => filters[name]).length;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const next: AuditFilters = {};
    for (const name of filterNames) {
      const value = String(data.get(name) ?? "");
      next[name] = name === "since" || name === "until" ? fromLocalInput(value) : value;
    }
    onApply(next);
  };
  const actorKnown = !filters.actor || tokens.some((t) => t.id === filters.actor);

  return (
    <>
      {narrow && (
        <Button aria-expanded={unfolded} aria-controls="audit-filters" onClick={() => setUnfolded((u) => !u)}>
          <SlidersHorizontal size={14} aria-hidden="true" /> Filters{inForce > 0 && ` (${inForce} in force)`}
        </Button>
      )}
      <form
        id="audit-filters"
        className="audit-filters"
        aria-label="Audit filters"
        onSubmit={submit}
        hidden={narrow && !unfolded}
      >
        <Field label="Who" error={errors.actor}>
          {(control) => (
            <select {...control} name="actor" className="input" defaultValue={filters.actor ?? ""}>
              <option value="">Anyone</option>
              {tokens.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
              {!actorKnown && <option value={filters.actor}>Token {filters.actor}</option>}
            </select>
          )}
        </Field>
        <Field label="Resource" error={errors.resource_type}>
          {(control) => (
            <select {...control} name="resource_type" className="input" defaultValue={filters.resource_type ?? ""}>
              <option value="">Any kind</option>
              {resourceTypes.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Resource id" error={errors.resource_id}>
          {(control) => <input {...control} name="resource_id" className="input" defaultValue={filters.resource_id ?? ""} />}
        </Field>
        <Field label="Action" error={errors.action}>
          {(control) => (
            <select {...control} name="action" className="input" defaultValue={filters.action ?? ""}>
              <option value="">Any action</option>
              {auditActions.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Outcome" error={errors.outcome}>
          {(control) => (
            <select {...control} name="outcome" className="input" defaultValue={filters.outcome ?? ""}>
              <option value="">Any outcome</option>
              {outcomes.map((o) => (
                <option key={o}>{o}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="From" error={errors.since}>
          {(control) => <input {...control} type="datetime-local" name="since" className="input" defaultValue={toLocalInput(filters.since)} />}
        </Field>
        <Field label="Until" error={errors.until}>
          {(control) => <input {...control} type="datetime-local" name="until" className="input" defaultValue={toLocalInput(filters.until)} />}
        </Field>
        <div className="audit-filters__actions">
          <Button type="submit" variant="primary">
            Apply filters
          </Button>
          <Button onClick={() => onApply({})}>Clear</Button>
        </div>
      </form>
    </>
  );
}
