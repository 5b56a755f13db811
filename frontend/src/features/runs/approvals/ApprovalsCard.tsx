import { Check, X } from "lucide-react";
import { useId } from "react";
import { Button } from "../../../ui/Button";
import { Pill } from "../../../ui/Pill";
import { ProblemMessage } from "../../../ui/ProblemMessage";
import { formatDate, timeAgo } from "../../../ui/time";
import { type Approval, useApprovals, useDecide } from "./api";
import "./approvals.css";

/** What each sandbox tool does, as a person reads it. */
const toolLabels: Record<string, string> = {
  execute: "Run a command",
  ls: "List a folder",
  read_file: "Read a file",
  write_file: "Create a file",
  edit_file: "Edit a file",
  glob: "Find files by name",
  grep: "Search files for text",
};

/** The most decided calls shown under the waiting ones. */
const shownDecided = 5;

function origin(a: Approval): string {
  return a.via === "mcp" ? `${a.requested_by}, through an MCP client` : a.requested_by;
}

/** Who may approve a call, by the agent's approval rule, as a person reads it. */
const grantors: Record<Approval["granted_by"], string> = {
  anyone: "Anyone in the workspace may approve it.",
  someone_else: "Someone other than whoever made the call must approve it.",
  admin: "An admin must approve it.",
};

/** Why this token may not approve a call the rule keeps from it. */
const refusals: Record<Approval["granted_by"], string> = {
  anyone: "",
  someone_else: "You made this call: someone else must approve it.",
  admin: "Only an admin can approve this call.",
};

function Arguments({ args }: { args: Approval["arguments"] }) {
  const entries = Object.entries(args ?? {});
  if (entries.length === 0) return <p className="muted">No arguments.</p>;
  return (
    <dl className="approval__args">
      {entries.map(([name, value]) => (
        <div key={name} className="approval__arg">
          <dt>{name}</dt>
          <dd>
            <pre className="mono">{typeof value === "string" ? value : JSON.stringify(value, null, 2)}</pre>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function PendingApproval({ runId, approval }: { runId: string; approval: Approval }) {
  const decide = useDecide();
  const reasonId = useId();
  const label = toolLabels[approval.tool] ?? approval.tool;
  const send = (decision: "approve" | "deny") => decide.mutate({ runId, approvalId: approval.id, decision });
  const refused = approval.can_approve ? "" : refusals[approval.granted_by];
  return (
    <li>
      <article className="approval" aria-label={`${label}: waiting for approval`}>
        <header className="approval__header">
          <Pill tone="warn">waiting</Pill>
          <strong>{label}</strong>
          <span className="mono muted">{approval.tool}</span>
          <span className="muted approval__who">
            asked by {origin(approval)} · <time dateTime={approval.requested_at}>{timeAgo(approval.requested_at)}</time>
          </span>
        </header>
        <Arguments args={approval.arguments} />
        {approval.arguments_truncated && <p className="field__help">Long arguments are shown cut.</p>}
        <p className="muted approval__rule">{grantors[approval.granted_by]}</p>
        {decide.isError && <ProblemMessage error={decide.error} />}
        <div className="approval__actions">
          <Button
            variant="primary"
            size="sm"
            busy={decide.isPending}
            disabled={decide.isPending || refused !== ""}
            aria-describedby={refused ? reasonId : undefined}
            onClick={() => send("approve")}
          >
            <Check size={14} aria-hidden="true" /> Approve
          </Button>
          <Button variant="danger" size="sm" disabled={decide.isPending} onClick={() => send("deny")}>
            <X size={14} aria-hidden="true" /> Deny
          </Button>
          {refused && (
            <span id={reasonId} className="field__help approval__refused">
              {refused}
            </span>
          )}
        </div>
      </article>
    </li>
  );
}

function DecidedApproval({ approval }: { approval: Approval }) {
  const label = toolLabels[approval.tool] ?? approval.tool;
  const approved = approval.status === "approved";
  const when = approval.decided_at ? formatDate(approval.decided_at) : "";
  let after = "";
  if (approved) after = approval.used_at ? " The call ran." : " The call runs when it is made again.";
  else if (approval.used_at) after = " The call was refused.";
  return (
    <li className="approval approval--decided">
      <Pill tone={approved ? "ok" : "danger"}>{approved ? "approved" : "denied"}</Pill>{" "}
      <strong>{label}</strong> <span className="mono muted">{summary(approval)}</span>
      <p className="approval__who">
        {`${approved ? "Approved" : "Denied"} by ${approval.decided_by ?? "someone"}${when ? ` on ${when}` : ""}.${after}`}
      </p>
    </li>
  );
}

/** One line naming what a call works on: its command, or its path. */
function summary(a: Approval): string {
  const args = a.arguments ?? {};
  const text = args.command ?? args.path ?? args.pattern ?? "";
  const line = String(text).split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 80)}…` : line;
}

/**
 * The run's thread's tool calls that need a person: each waiting call with
 * its tool and arguments, to approve or deny, and who decided the latest
 * ones. Calls from MCP clients that cannot ask their person wait here too:
 * the card polls while the console is open.
 */
export function ApprovalsCard({ runId }: { runId: string }) {
  const { data, error } = useApprovals(runId);
  const approvals = data ?? [];
  const pending = approvals.filter((a) => a.status === "pending");
  const decided = approvals.filter((a) => a.status !== "pending").slice(0, shownDecided);
  if (!error && pending.length === 0 && decided.length === 0) return null;
  return (
    <section className="card approvals" aria-labelledby="approvals-heading">
      <h2 id="approvals-heading">Approvals</h2>
      {error && <ProblemMessage error={error} />}
      {pending.length > 0 ? (
        <ul className="approvals__list" aria-label="Waiting for a decision">
          {pending.map((a) => (
            <PendingApproval key={a.id} runId={runId} approval={a} />
          ))}
        </ul>
      ) : (
        <p className="muted">No call is waiting for approval.</p>
      )}
      {decided.length > 0 && (
        <>
          <h3 className="approvals__subheading">Decided</h3>
          <ul className="approvals__list" aria-label="Decided">
            {decided.map((a) => (
              <DecidedApproval key={a.id} approval={a} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
