import { Link } from "react-router-dom";
import { formatDate } from "../../ui/time";
import type { Run } from "./api/types";

/** The run's sandbox was deleted since it started (which ended the run). */
export function sandboxDeleted(run: Run) {
  return run.sandbox?.deleted === true;
}

/** The run ended because its sandbox was taken from it: deleted, or no longer its agent's. */
function lostItsSandbox(run: Run) {
  return sandboxDeleted(run) || run.ended_by === "sandbox_deleted" || run.ended_by === "agent_unbound";
}

function why(run: Run, gone: string | null): string {
  if (lostItsSandbox(run) && run.notice) return run.notice;
  switch (run.ended_by) {
    case "caller":
      return "It was ended by its caller: End run, or its MCP session closing.";
    case "newer_run":
      return "A newer run on its thread ended it.";
    case "idle":
      return "It expired: no tool was called for longer than the server's idle timeout.";
  }
  if (gone) return gone;
  if (run.status === "expired") return "It expired: no tool was called for longer than the server's idle timeout.";
  return "It was ended: by End run, or by a newer run on its thread.";
}

/**
 * Says that the run shown can no longer be used, why (the server's words
 * where it gave them) and what to do next, instead of a console that looks
 * live.
 */
export function RunEnded({ run, gone }: { run: Run; gone: string | null }) {
  const lostSandbox = lostItsSandbox(run) || gone !== null;
  return (
    <div className="notice run__ended" role="status" aria-label="Run ended">
      <p>
        <strong>This run has ended{run.ended_at ? ` (${formatDate(run.ended_at)})` : ""}.</strong> {why(run, gone)}
      </p>
      <p>
        Commands and files need an active run: start a new one above
        {lostSandbox ? (
          <>
            {" "}
            once the agent has a sandbox again (<Link to={`/agents/${run.agent_id}`}>check its Tools</Link>)
          </>
        ) : null}
        .
      </p>
    </div>
  );
}
