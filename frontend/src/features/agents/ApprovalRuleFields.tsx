import { CheckboxField } from "../../ui/CheckboxField";
import { Field } from "../../ui/Field";
import { grantors, type ApprovalRule } from "./tools";

interface ApprovalRuleFieldsProps {
  rule: ApprovalRule;
  /** The person may set a rule other than the default: only admins may. */
  canSet: boolean;
  onChange: (rule: ApprovalRule) => void;
}

/**
 * Who may approve the calls of the tools that need approval, and whether
 * an approval sent with the call itself counts, or only one given in the
 * run console.
 */
export function ApprovalRuleFields({ rule, canSet, onChange }: ApprovalRuleFieldsProps) {
  const someoneElse = rule.granted_by === "someone_else";
  return (
    <fieldset className="tool-card__approvals">
      <legend className="field__label">Approvals</legend>
      <Field
        label="Who may approve a call"
        help={
          canSet
            ? "For the tools set to Needs approval. Someone other than whoever made the call: the token that runs the agent cannot approve its own calls."
            : "Only an admin can change who approves this agent's calls."
        }
      >
        {(control) => (
          <select
            {...control}
            className="input tool-card__policy"
            value={rule.granted_by}
            disabled={!canSet}
            onChange={(e) => onChange({ ...rule, granted_by: e.target.value as ApprovalRule["granted_by"] })}
          >
            {grantors.map((g) => (
              <option key={g.value} value={g.value}>
                {g.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <CheckboxField
        label="Accept an approval sent with the call"
        help={
          someoneElse
            ? "Never when someone else must approve: it would be the caller approving its own call."
            : "The Auxilia-Approval header, or the answer given to an MCP client's prompt. Off: calls wait here, in the run console, for a decision."
        }
        checked={rule.with_call && !someoneElse}
        disabled={!canSet || someoneElse}
        onChange={(with_call) => onChange({ ...rule, with_call })}
      />
    </fieldset>
  );
}
