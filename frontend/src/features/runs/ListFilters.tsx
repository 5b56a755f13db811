import { useAgents } from "../../api/listAgents";
import { useSandboxes } from "../../api/listSandboxes";

interface FilterProps {
  value: string | undefined;
  onChange: (value: string | undefined) => void;
}

/** A labelled select of a list's filter; the empty choice takes the filter off. */
export function ChoiceFilter({
  label,
  anyLabel,
  choices,
  value,
  onChange,
}: FilterProps & { label: string; anyLabel: string; choices: readonly { value: string; label: string }[] }) {
  return (
    <label className="recent-runs__filter">
      <span>{label}</span>
      <select className="input" value={value ?? ""} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">{anyLabel}</option>
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The workspace's agents, to narrow a list to one. */
export function AgentFilter(props: FilterProps) {
  const agents = useAgents();
  const choices = agents.data?.map((a) => ({ value: a.id, label: a.name })) ?? [];
  return <ChoiceFilter label="Agent" anyLabel="All agents" choices={choices} {...props} />;
}

/** The workspace's sandboxes, to narrow a list to one. */
export function SandboxFilter(props: FilterProps) {
  const sandboxes = useSandboxes();
  const choices = sandboxes.data?.map((s) => ({ value: s.id, label: s.name })) ?? [];
  return <ChoiceFilter label="Sandbox" anyLabel="All sandboxes" choices={choices} {...props} />;
}
