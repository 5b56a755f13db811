import { useId, useState } from "react";
import { useProviders } from "../../api/listProviders";
import { useSandboxes } from "../../api/listSandboxes";
import type { SandboxInstance } from "../../api/types";
import { Loading } from "../../ui/Loading";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useInstances, type InstanceFilters } from "../../api/instances";
import { InstancesTable } from "../../ui/InstancesTable";
import { AgentFilter, ChoiceFilter, SandboxFilter } from "./ListFilters";

const stateChoices = [
  { value: "creating", label: "Being created" },
  { value: "live", label: "Running" },
  { value: "paused", label: "Paused" },
] as const;

/**
 * The workspace's live instances across its sandboxes (admins), filtered by
 * agent, sandbox and state, each with the actions of its sandbox's page.
 */
export function ActiveInstances() {
  const [filters, setFilters] = useState<InstanceFilters>({});
  const instances = useInstances(filters);
  const sandboxes = useSandboxes();
  const providers = useProviders();
  const id = useId();
  const set = (changes: InstanceFilters) => setFilters({ ...filters, ...changes });
  const canPause = (instance: SandboxInstance) => {
    const provider = sandboxes.data?.find((s) => s.id === instance.sandbox_id)?.provider;
    return providers.data?.find((p) => p.name === provider)?.capabilities.includes("pause_resume") ?? false;
  };
  const filtered = Object.values(filters).some(Boolean);

  return (
    <section className="card recent-runs" aria-labelledby={`${id}-title`}>
      <header className="recent-runs__header">
        <h2 id={`${id}-title`}>Live instances</h2>
        <div className="recent-runs__filters" role="group" aria-label="Filter instances">
          <AgentFilter value={filters.agent_id} onChange={(agent_id) => set({ agent_id })} />
          <SandboxFilter value={filters.sandbox_id} onChange={(sandbox_id) => set({ sandbox_id })} />
          <ChoiceFilter
            label="State"
            anyLabel="Any state"
            choices={stateChoices}
            value={filters.state}
            onChange={(state) => set({ state: state as InstanceFilters["state"] })}
          />
        </div>
      </header>
      {instances.isPending && <Loading />}
      {instances.isError && <ProblemMessage error={instances.error} />}
      {instances.data && (
        <InstancesTable
          instances={instances.data}
          canPause={canPause}
          showSandbox
          empty={filtered ? "No live instances match." : "No live instances: a thread's first run makes one."}
        />
      )}
    </section>
  );
}
