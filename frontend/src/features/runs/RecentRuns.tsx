import { useId, useState } from "react";
import { Link } from "react-router-dom";
import { useAgents } from "../../api/listAgents";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { timeAgo } from "../../ui/time";
import { useRecentRuns, type RecentRunFilters } from "./api/listRecentRuns";
import { AgentFilter, ChoiceFilter, SandboxFilter } from "./ListFilters";

const statusTones = { active: "ok", completed: "neutral", expired: "warn" } as const;
const statusLabels = { active: "Active", completed: "Completed", expired: "Expired" } as const;

/** The workspace's recent runs, filtered by agent, sandbox and state; each opens in the console. */
export function RecentRuns({ currentRunId }: { currentRunId?: string }) {
  const [filters, setFilters] = useState<RecentRunFilters>({});
  const runs = useRecentRuns(filters);
  const agents = useAgents();
  const id = useId();
  const agentName = (agentId: string) => agents.data?.find((a) => a.id === agentId)?.name ?? "Deleted agent";
  const set = (changes: RecentRunFilters) => setFilters({ ...filters, ...changes });

  return (
    <section className="card recent-runs" aria-labelledby={`${id}-title`}>
      <header className="recent-runs__header">
        <h2 id={`${id}-title`}>Recent runs</h2>
        <div className="recent-runs__filters" role="group" aria-label="Filter runs">
          <AgentFilter value={filters.agent_id} onChange={(agent_id) => set({ agent_id })} />
          <SandboxFilter value={filters.sandbox_id} onChange={(sandbox_id) => set({ sandbox_id })} />
          <ChoiceFilter
            label="State"
            anyLabel="Any state"
            choices={(["active", "completed", "expired"] as const).map((s) => ({ value: s, label: statusLabels[s] }))}
            value={filters.status}
            onChange={(status) => set({ status: status as RecentRunFilters["status"] })}
          />
        </div>
      </header>
      {runs.isPending && <Loading />}
      {runs.isError && <ProblemMessage error={runs.error} />}
      {runs.data?.length === 0 && <p className="muted">No runs match.</p>}
      {runs.data && runs.data.length > 0 && (
        <ul className="recent-runs__list" aria-label="Recent runs">
          {runs.data.map((run) => (
            <li key={run.id} className={run.id === currentRunId ? "recent-run recent-run--current" : "recent-run"}>
              <Link to={`/runs/${run.id}`} aria-current={run.id === currentRunId ? "page" : undefined}>
                {agentName(run.agent_id)} · <span className="mono">{run.thread_id}</span>
              </Link>
              <Pill tone={statusTones[run.status]}>{run.status}</Pill>
              <span className="muted">{run.sandbox ? `on ${run.sandbox.name}` : "no sandbox"}</span>
              <time className="muted" dateTime={run.started_at} title={new Date(run.started_at).toLocaleString()}>
                started {timeAgo(run.started_at)}
              </time>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
