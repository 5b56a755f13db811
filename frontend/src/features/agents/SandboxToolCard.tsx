import { Trash2 } from "lucide-react";
import { useId } from "react";
import { Button } from "../../ui/Button";
import { Pill } from "../../ui/Pill";
import type { Tool } from "../../api/types";
import { ProviderIcon } from "../../ui/ProviderIcon";
import { FailingSandboxWarning, HealthSummary } from "../../ui/SandboxHealthNote";
import { useSandboxes } from "../../api/listSandboxes";
import { ApprovalRuleFields } from "./ApprovalRuleFields";
import { ShellBypassWarning } from "./ShellBypassWarning";
import { orderedTools, toolPolicies, type ApprovalRule, type DraftBinding } from "./tools";

interface SandboxToolCardProps {
  binding: DraftBinding;
  providerTitle: string;
  /** The tool catalogue: the order and descriptions of the tools. */
  catalogue: Tool[];
  /** The person may set an approval rule other than the default (an admin). */
  canSetRule: boolean;
  /** The saved binding is an admin's to change (its approval rule is not the default) and the person is not one. */
  locked: boolean;
  onPolicyChange: (tool: string, policy: string) => void;
  onApprovalChange: (rule: ApprovalRule) => void;
  onRemove: () => void;
}

/** The bound sandbox in the agent's Tools section, with each tool's policy and who approves their calls. */
export function SandboxToolCard(props: SandboxToolCardProps) {
  const { binding, providerTitle, catalogue, canSetRule, locked, onPolicyChange, onApprovalChange, onRemove } = props;
  const headingId = useId();
  // Its health, from the workspace's list (which the Add tool picker reads too).
  const health = useSandboxes().data?.find((s) => s.id === binding.sandboxId)?.health;
  return (
    <section className="card tool-card" aria-labelledby={headingId}>
      <header className="tool-card__header">
        <ProviderIcon provider={binding.provider} />
        <div className="list-row__main">
          <h3 id={headingId} className="list-row__title">
            <span className="truncate">{binding.name}</span>
            <Pill tone="accent">{providerTitle}</Pill>
          </h3>
          <p className="muted truncate" title={binding.url || undefined}>
            Code execution{binding.url ? <> · <span className="mono">{binding.url}</span></> : null}
          </p>
          {health && <HealthSummary health={health} />}
        </div>
        <Button size="sm" onClick={onRemove} disabled={locked} aria-label={`Remove ${binding.name}`}>
          <Trash2 size={13} aria-hidden="true" /> Remove
        </Button>
      </header>
      {health && <FailingSandboxWarning name={binding.name} health={health} />}
      {locked && (
        <p className="notice" role="note">
          Only an admin can change or remove this sandbox: who approves its calls is set stricter than the default.
        </p>
      )}
      <ul className="tool-card__tools" aria-label="Tools and their policies">
        {orderedTools(binding.tools, catalogue).map((name) => {
          const tool = catalogue.find((t) => t.name === name);
          const control = `${headingId}-${name}`;
          return (
            <li key={name} className="tool-card__tool">
              <div className="tool-card__about">
                <label htmlFor={control} className="mono">
                  {name}
                </label>
                {tool && (
                  <>
                    <span className="tool-card__title">{tool.title}</span>
                    <p id={`${control}-description`} className="tool-card__description">
                      {tool.description}
                    </p>
                  </>
                )}
              </div>
              <select
                id={control}
                className="input tool-card__policy"
                value={binding.tools[name]}
                disabled={locked}
                aria-describedby={tool ? `${control}-description` : undefined}
                onChange={(e) => onPolicyChange(name, e.target.value)}
              >
                {toolPolicies.map((p) => (
                  <option key={p.value} value={p.value}>
                    {p.label}
                  </option>
                ))}
              </select>
            </li>
          );
        })}
      </ul>
      <ShellBypassWarning tools={binding.tools} catalogue={catalogue} />
      <ApprovalRuleFields rule={binding.approval} canSet={canSetRule && !locked} onChange={onApprovalChange} />
    </section>
  );
}
