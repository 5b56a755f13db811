import { Link, useParams } from "react-router-dom";
import { usePageTitle } from "../../ui/usePageTitle";
import { EmptyState } from "../../ui/EmptyState";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { timeAgo } from "../../ui/time";
import { useThreads } from "./api/listThreads";
import { RunAgentName } from "./RunAgentName";
import "./runs.css";

/** An agent's threads, newest run first, each linking to its runs. */
export default function ThreadsPage() {
  usePageTitle("Threads");
  const { agentId = "" } = useParams();
  const threads = useThreads(agentId);

  return (
    <div className="page page--wide">
      <header className="page-header">
        <h1>Threads</h1>
        <p className="page-header__lead">
          <RunAgentName agentId={agentId} />: each thread keeps its sandbox between runs.
        </p>
      </header>
      {threads.isPending ? (
        <Loading label="Loading threads…" />
      ) : threads.isError ? (
        <ProblemMessage error={threads.error} />
      ) : threads.data.length === 0 ? (
        <EmptyState action={<Link to="/runs">Start a run</Link>}>No threads yet.</EmptyState>
      ) : (
        <ul className="run-history__list" aria-label="Threads">
          {threads.data.map((t) => (
            <li key={t.thread_id} className="run-history__item">
              <Link className="mono" to={`/agents/${agentId}/threads/${encodeURIComponent(t.thread_id)}`}>
                {t.thread_id}
              </Link>
              <Pill tone={t.state === "running" ? "ok" : "neutral"}>{t.state}</Pill>
              {t.last_run_at && <span className="muted">last run {timeAgo(t.last_run_at)}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
