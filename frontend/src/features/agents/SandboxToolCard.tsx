import { Trash2 } from "lucide-react";
import { useId } from "react";
import { Button } from "../../ui/Button";
import { Pill } from "../../ui/Pill";
import { ProviderIcon } from "../sandboxes/ProviderIcon";
import { orderedTools, toolPolicies, type DraftBinding } from "./tools";

interface SandboxToolCardProps {
  binding: DraftBinding;
  providerTitle: string;
  onPolicyChange: (tool: string, policy: string) => void;
  onRemove: () => void;
}

/** The bound sandbox in the agent's Tools section, with each tool's policy. */
export function SandboxToolCard({ binding, providerTitle, onPolicyChange, onRemove }: SandboxToolCardProps) {
  const headingId = useId();
  return (
    <section className="card tool-card" aria-labelledby={headingId}>
      <header className="tool-card__header">
        <ProviderIcon provider={binding.provider} />
        <div className="list-row__main">
          <h3 id={headingId} className="list-row__title">
            <span className="truncate">{binding.name}</span>
            <Pill tone="accent">{providerTitle}</Pill>
          </h3>
          <p className="muted">Code execution{binding.url ? <> · <span className="mono">{binding.url}</span></> : null}</p>
        </div>
        <Button size="sm" onClick={onRemove} aria-label={`Remove ${binding.name}`}>
          <Trash2 size={13} aria-hidden="true" /> Remove
        </Button>
      </header>
      <ul className="tool-card__tools" aria-label="Tools and their policies">
        {orderedTools(binding.tools).map((tool) => (
          <li key={tool} className="tool-card__tool">
            <label htmlFor={`${headingId}-${tool}`} className="mono">
              {tool}
            </label>
            <select
              id={`${headingId}-${tool}`}
              className="input tool-card__policy"
              value={binding.tools[tool]}
              onChange={(e) => onPolicyChange(tool, e.target.value)}
            >
              {toolPolicies.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.label}
                </option>
              ))}
            </select>
          </li>
        ))}
      </ul>
    </section>
  );
}
