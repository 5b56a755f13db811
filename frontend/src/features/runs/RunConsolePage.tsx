import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { usePageTitle } from "../../ui/usePageTitle";
import { Button } from "../../ui/Button";
import { Pill } from "../../ui/Pill";
import { ApprovalsCard } from "./approvals/ApprovalsCard";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useCompleteRun } from "./api/completeRun";
import { useRun } from "./api/getRun";
import { runKeys } from "./api/keys";
import type { Run } from "./api/types";
import { ConsoleTabs } from "./ConsoleTabs";
import { FilePane } from "./FilePane";
import { RunAgentName } from "./RunAgentName";
import { RunEnded, sandboxDeleted } from "./RunEnded";
import { ActiveInstances } from "./ActiveInstances";
import { RecentRuns } from "./RecentRuns";
import { RunStarter } from "./RunStarter";
import { ThreadState } from "./ThreadState";
import { useRunGone } from "./useRunGone";
import { useSession } from "../../session/SessionContext";
import "./runs.css";

export default function RunConsolePage() {
  usePageTitle("Runs");
  // The run has an address (/runs/:runId): a reload or a shared link shows it again.
  const { runId } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const shown = useRun(runId);
  const run = shown.data ?? null;
  const setRun = (next: Run) => queryClient.setQueryData(runKeys.run(next.id), next);
  // A replaced sandbox's notice is shown for the run that brought it, once.
  const [notice, setNotice] = useState<string | null>(null);
  const complete = useCompleteRun();
  const { isAdmin } = useSession();

  const started = (next: Run) => {
    complete.reset();
    setRun(next);
    setNotice(next.notice);
    navigate(`/runs/${next.id}`);
  };
  // A new start takes the run shown off the screen: a start that fails leaves none that looks current.
  const starting = () => {
    complete.reset();
    setNotice(null);
    if (runId) navigate("/runs");
  };
  // The run ends under the console when its sandbox is deleted, it expires,
  // or another run on its thread starts: its calls then answer
  // run_not_active, and the run read again says how it ended.
  const { gone, report } = useRunGone(runId);
  const ended = run?.status !== "active" || gone !== null;

  return (
    <div className="page page--wide">
      <header className="page-header">
        <h1>Runs</h1>
        <p className="page-header__lead">Start a run of an agent on a thread, then work in its sandbox as the agent would.</p>
      </header>
      <div className="card">
        <RunStarter onStarting={starting} onStarted={started} currentRunId={runId} shownAgentId={run?.agent_id} />
      </div>
      {shown.isError && !run && <ProblemMessage error={shown.error} />}

      {run && (
        <section className="run" aria-label="Current run">
          <header className="run__header">
            <Pill tone={ended ? "neutral" : "ok"}>{run.status === "active" && ended ? "ended" : run.status}</Pill>
            <RunAgentName agentId={run.agent_id} linkToThreads />
            <span>
              Thread{" "}
              <Link className="mono" to={`/agents/${run.agent_id}/threads/${encodeURIComponent(run.thread_id)}`}>
                {run.thread_id}
              </Link>
            </span>
            {run.sandbox && (
              <span className="muted">
                {sandboxDeleted(run) ? (
                  `on ${run.sandbox.name}, deleted since`
                ) : (
                  <>
                    on {run.sandbox.name}
                    {run.sandbox.created && " (new instance)"}
                  </>
                )}
              </span>
            )}
            <span className="spacer" />
            {!ended && (
              <Button
                size="sm"
                busy={complete.isPending}
                onClick={() => complete.mutate(run.id, { onSuccess: (r) => setRun(r) })}
              >
                End run
              </Button>
            )}
          </header>
          {ended && <RunEnded run={run} gone={gone} />}
          {notice && !ended && (
            <div className="notice run__notice" role="status">
              <p>{notice}</p>
              <Button size="sm" variant="ghost" onClick={() => setNotice(null)}>
                Dismiss
              </Button>
            </div>
          )}
          {complete.isError && <ProblemMessage error={complete.error} />}
          {run.sandbox && !ended && <ThreadState agentId={run.agent_id} threadId={run.thread_id} runId={run.id} />}
          {run.sandbox && !ended && <ApprovalsCard runId={run.id} />}
          {run.sandbox ? (
            <div className="run__panes">
              <ConsoleTabs key={run.id} runId={run.id} provider={run.sandbox.provider} disabled={ended} onError={report} />
              {ended ? (
                <section className="files" aria-label="Files">
                  <p className="muted">The files of a run can be seen while it is active.</p>
                </section>
              ) : (
                <FilePane key={`files-${run.id}`} runId={run.id} />
              )}
            </div>
          ) : (
            <p className="muted">This agent has no sandbox: the run has no code execution. Add one in the agent's Tools.</p>
          )}
        </section>
      )}
      <RecentRuns currentRunId={runId} />
      {isAdmin && <ActiveInstances />}
    </div>
  );
}
