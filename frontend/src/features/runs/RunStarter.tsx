import { Play } from "lucide-react";
import { useEffect, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { isApiError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { emojiPrefix } from "../../ui/emojiGlyph";
import { Field } from "../../ui/Field";
import { Loading } from "../../ui/Loading";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { timeAgo } from "../../ui/time";
import { useAgents } from "../../api/listAgents";
import { useThreads } from "./api/listThreads";
import { useStartRun } from "./api/startRun";
import type { Run } from "./api/types";
import { StartProgress, type StartSteps } from "./StartProgress";

/** A thread id a person can read back: console-20261129-130512. */
function newThreadId() {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `console-${stamp}`;
}

interface RunStarterProps {
  /** A start begins: whatever run was shown is no longer the current one. */
  onStarting?: () => void;
  onStarted: (run: Run) => void;
  /** The run the console shows: a start's steps stay beside the run they started. */
  currentRunId?: string;
  /** The agent of the run the console shows: the starter picks it, so Start run starts that agent. */
  shownAgentId?: string;
}

/** Pick an agent and a thread, then start a run (which probes the agent's sandbox first). */
export function RunStarter({ onStarting, onStarted, currentRunId, shownAgentId }: RunStarterProps) {
  const agents = useAgents();
  // "Run this agent" in the agent editor opens the console with ?agent=<id>.
  const [searchParams] = useSearchParams();
  const [agentId, setAgentId] = useState(() => searchParams.get("agent") ?? "");
  const [threadMode, setThreadMode] = useState<"new" | "recent">("new");
  const [newThread, setNewThread] = useState(newThreadId);
  const [recentThread, setRecentThread] = useState("");
  const threads = useThreads(agentId || undefined);
  const start = useStartRun();
  const [progress, setProgress] = useState<(StartSteps & { runId?: string }) | null>(null);

  // The run shown below is the starter's agent's: never one agent above another's run.
  useEffect(() => {
    if (shownAgentId) setAgentId(shownAgentId);
  }, [shownAgentId]);
  // Preselect the first agent, so one click starts a run.
  useEffect(() => {
    if (!agentId && agents.data?.[0]) setAgentId(shownAgentId ?? agents.data[0].id);
  }, [agentId, agents.data, shownAgentId]);
  useEffect(() => {
    setRecentThread(threads.data?.[0]?.thread_id ?? "");
  }, [threads.data]);

  if (agents.isPending) return <Loading label="Loading agents…" />;
  if (agents.isError) return <ProblemMessage error={agents.error} />;
  if (agents.data.length === 0) {
    return (
      <p className="muted">
        No agents yet. <Link to="/agents/new">Create one</Link> and give it a sandbox to run commands.
      </p>
    );
  }

  const recent = threads.data ?? [];
  const threadId = threadMode === "new" ? newThread.trim() : recentThread;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!agentId || !threadId || start.isPending) return;
    onStarting?.();
    const startedAt = Date.now();
    setProgress({ startedAt, steps: [], output: "" });
    start.mutate(
      {
        agentId,
        threadId,
        onStep: (step) => setProgress((p) => p && { ...p, steps: [...p.steps, { step, at: Date.now() - startedAt }] }),
        onOutput: (text) => setProgress((p) => p && { ...p, output: p.output + text }),
      },
      {
        onSuccess: (run) => {
          setProgress((p) => p && { ...p, runId: run.id });
          onStarted(run);
          if (threadMode === "new") setNewThread(newThreadId());
        },
      },
    );
  };

  // A failed probe shows the server's one line, and where it is kept: the thread's page, the sandbox's.
  const unavailable = isApiError(start.error, "sandbox_unavailable") ? start.error.problem : undefined;

  return (
    <form className="run-starter" onSubmit={submit} noValidate aria-label="Start a run">
      <Field label="Agent">
        {(control) => (
          <select {...control} className="input" value={agentId} onChange={(e) => setAgentId(e.target.value)}>
            {agents.data.map((a) => (
              <option key={a.id} value={a.id}>
                {emojiPrefix(a.emoji)}
                {a.name}
                {a.sandbox ? ` — ${a.sandbox.name}` : " — no sandbox"}
              </option>
            ))}
          </select>
        )}
      </Field>
      <fieldset className="run-starter__thread">
        <legend className="field__label">Thread</legend>
        <label className="checkbox">
          <input type="radio" name="thread-mode" checked={threadMode === "new"} onChange={() => setThreadMode("new")} />
          New
        </label>
        <label className="checkbox">
          <input
            type="radio"
            name="thread-mode"
            checked={threadMode === "recent"}
            disabled={recent.length === 0}
            onChange={() => setThreadMode("recent")}
          />
          Recent{recent.length === 0 ? " (none yet)" : ""}
        </label>
        {threadMode === "new" ? (
          <input
            className="input mono"
            aria-label="New thread id"
            value={newThread}
            maxLength={128}
            spellCheck={false}
            onChange={(e) => setNewThread(e.target.value)}
          />
        ) : (
          <select className="input mono" aria-label="Recent thread" value={recentThread} onChange={(e) => setRecentThread(e.target.value)}>
            {recent.map((t) => (
              <option key={t.thread_id} value={t.thread_id}>
                {t.thread_id}
                {t.last_run_at ? ` (${timeAgo(t.last_run_at)})` : ""}
              </option>
            ))}
          </select>
        )}
      </fieldset>
      <div className="run-starter__go">
        <Button type="submit" variant="primary" busy={start.isPending} disabled={start.isPending || !agentId || !threadId}>
          {!start.isPending && <Play size={13} aria-hidden="true" />} Start run
        </Button>
      </div>
      {progress && (start.isPending || (progress.steps.length > 0 && (start.isError || progress.runId === currentRunId))) && (
        <StartProgress progress={progress} pending={start.isPending} failed={start.isError} />
      )}
      {unavailable ? (
        <div className="problem run-starter__problem">
          <p role="alert">{unavailable.detail}</p>
          <p>
            {typeof unavailable.sandbox_id === "string" && (
              <>
                <Link to={`/sandboxes/${unavailable.sandbox_id}`}>Open the sandbox</Link>
                {" · "}
              </>
            )}
            {start.variables && (
              <Link to={`/agents/${start.variables.agentId}/threads/${encodeURIComponent(start.variables.threadId)}`}>
                The thread keeps this notice
              </Link>
            )}
          </p>
        </div>
      ) : (
        start.isError && (
          <div className="run-starter__problem">
            <ProblemMessage error={start.error} />
          </div>
        )
      )}
    </form>
  );
}
