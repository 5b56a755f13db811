import { Pill } from "../../ui/Pill";
import { formatDate } from "../../ui/time";
import { useThread } from "./api/getThread";
import type { Thread } from "./api/types";

const tones = { running: "ok", paused: "warn", kept: "accent", none: "neutral" } as const;

/** What happens to the thread's sandbox between runs: running (and when it pauses), paused, or only its files kept. */
function describe(thread: Thread): string {
  switch (thread.state) {
    case "running":
      return thread.pauses_at ? `Pauses at ${formatDate(thread.pauses_at)} if the thread is idle.` : "Never pauses.";
    case "paused":
      return `Paused${thread.paused_at ? ` at ${formatDate(thread.paused_at)}` : ""}: the next run resumes it, files intact.`;
    case "kept":
      return "No instance now: the next run restores the kept files.";
    default:
      return "No instance: the next run makes one.";
  }
}

export function ThreadState({ agentId, threadId, runId }: { agentId: string; threadId: string; runId: string }) {
  const { data: thread } = useThread(agentId, threadId, runId);
  if (!thread) return null;
  return (
    <p className="run__thread muted" aria-label="Thread's sandbox">
      <Pill tone={tones[thread.state]}>{thread.state}</Pill> {describe(thread)}
      {thread.kept && (
        <>
          {" "}
          Files kept at {formatDate(thread.kept.kept_at)} (deleted from {formatDate(thread.kept.deleted_from)}).
        </>
      )}
    </p>
  );
}
