import { Link } from "react-router-dom";
import { Loading } from "../../ui/Loading";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { formatDateSeconds } from "../../ui/time";
import { useStartFailures } from "./api/listStartFailures";

/**
 * The thread's run starts its sandbox refused, newest first: the notice
 * that was shown, when, and a link to the sandbox's page.
 */
export function StartFailures({ agentId, threadId }: { agentId: string; threadId: string }) {
  const failures = useStartFailures(agentId, threadId);
  if (failures.isPending) return <Loading label="Loading refused starts…" />;
  if (failures.isError) return <ProblemMessage error={failures.error} />;
  if (failures.data.length === 0) return null;
  return (
    <section aria-labelledby="start-failures-heading">
      <h2 id="start-failures-heading">Refused starts</h2>
      <ol className="start-failures" aria-label="Refused starts">
        {[...failures.data].reverse().map((f) => (
          <li key={f.id} className="start-failures__item notice">
            <p>
              <time dateTime={f.failed_at}>{formatDateSeconds(f.failed_at)}</time>
              {" · "}
              {f.sandbox_id ? <Link to={`/sandboxes/${f.sandbox_id}`}>Sandbox {f.sandbox_name}</Link> : `Sandbox ${f.sandbox_name}`}
            </p>
            <p>{f.notice}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}
