import { Trash2 } from "lucide-react";
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { usePageTitle } from "../../ui/usePageTitle";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { formatDate } from "../../ui/time";
import { useDeleteThread } from "./api/deleteThread";
import { useRuns } from "./api/listRuns";
import { StartFailures } from "./StartFailures";
import { RunAgentName } from "./RunAgentName";
import { ThreadState } from "./ThreadState";
import "./runs.css";

const tones = { active: "ok", completed: "neutral", expired: "warn" } as const;

/** A thread: its sandbox's state, its runs (history), resume of its active run, delete. */
export default function ThreadPage() {
  const { agentId = "", threadId = "" } = useParams();
  usePageTitle(`Thread ${threadId}`);
  const runs = useRuns(agentId, threadId);
  const remove = useDeleteThread();
  const [confirming, setConfirming] = useState(false);
  const navigate = useNavigate();
  const active = runs.data?.find((r) => r.status === "active");

  return (
    <div className="page page--wide run-history">
      <header className="page-header">
        <p className="muted">
          <Link to={`/agents/${agentId}/threads`}>Threads</Link> of <RunAgentName agentId={agentId} />
        </p>
        <h1>
          Thread <span className="mono">{threadId}</span>
        </h1>
      </header>
      <div className="run__header">
        {active && (
          <Link className="btn btn--primary btn--md" to={`/runs/${active.id}`}>
            Resume the active run
          </Link>
        )}
        <span className="spacer" />
        <Button variant="danger" onClick={() => setConfirming(true)}>
          <Trash2 size={13} aria-hidden="true" /> Delete thread
        </Button>
      </div>
      {runs.data?.[0] && <ThreadState agentId={agentId} threadId={threadId} runId={runs.data[0].id} />}
      <h2>Runs</h2>
      {runs.isPending ? (
        <Loading label="Loading runs…" />
      ) : runs.isError ? (
        <ProblemMessage error={runs.error} />
      ) : (
        <ol className="run-history__list" aria-label="Runs">
          {runs.data.map((r) => (
            <li key={r.id} className="run-history__item">
              <Pill tone={tones[r.status]}>{r.status}</Pill>
              <Link to={`/runs/${r.id}`}>Run started {formatDate(r.started_at)}</Link>
              {r.sandbox && <span className="muted">on {r.sandbox.name}</span>}
              {r.ended_at && <span className="muted">ended {formatDate(r.ended_at)}</span>}
            </li>
          ))}
        </ol>
      )}
      <StartFailures agentId={agentId} threadId={threadId} />
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={`Delete thread ${threadId}?`}
        confirmLabel="Delete thread"
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() =>
          remove.mutate({ agentId, threadId }, { onSuccess: () => navigate(`/agents/${agentId}/threads`) })
        }
      >
        Its sandbox instance is destroyed with the files in it, and its runs are forgotten. This cannot be undone.
      </ConfirmDialog>
    </div>
  );
}
