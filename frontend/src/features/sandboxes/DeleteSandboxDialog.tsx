import { isApiError } from "../../api/problem";
import type { AgentRef, Sandbox } from "../../api/types";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { Loading } from "../../ui/Loading";
import { emojiPrefix } from "../../ui/emojiGlyph";
import { useDeleteSandbox } from "./api/deleteSandbox";
import { useSandboxAgents } from "./api/listSandboxAgents";

interface DeleteSandboxDialogProps {
  sandbox: Sandbox;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/**
 * Confirms a delete. A sandbox that agents use says so first (asked up
 * front, and again from the server's 409 should an agent bind meanwhile)
 * and offers to detach them in the same step.
 */
export function DeleteSandboxDialog({ sandbox, open, onOpenChange }: DeleteSandboxDialogProps) {
  const agents = useSandboxAgents(sandbox.id, open);
  const remove = useDeleteSandbox();

  const inUse = isApiError(remove.error, "sandbox_in_use") ? remove.error : undefined;
  const bound: AgentRef[] = inUse?.problem.agents ?? agents.data ?? [];
  const checking = agents.isPending && !inUse;
  const error = inUse ? undefined : (remove.error ?? agents.error ?? undefined);

  const close = (next: boolean) => {
    if (!next) remove.reset();
    onOpenChange(next);
  };
  const confirm = () =>
    remove.mutate({ id: sandbox.id, detachAgents: bound.length > 0 }, { onSuccess: () => close(false) });

  const n = bound.length;
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={close}
      title={n > 0 ? "Sandbox in use" : "Delete sandbox"}
      confirmLabel={n > 0 ? `Detach from ${n} ${n === 1 ? "agent" : "agents"} & delete` : "Delete sandbox"}
      onConfirm={confirm}
      busy={remove.isPending || checking}
      error={error}
    >
      {checking ? (
        <Loading label="Checking which agents use it…" />
      ) : n > 0 ? (
        <>
          <p>
            <strong>{sandbox.name}</strong> is the code-execution tool of {n === 1 ? "this agent" : `these ${n} agents`}:
          </p>
          <ul className="agent-chips" aria-label="Agents using this sandbox">
            {bound.map((agent) => (
              <li key={agent.id} className="agent-chip">
                <span aria-hidden="true">{emojiPrefix(agent.emoji)}</span>
                {agent.name}
              </li>
            ))}
          </ul>
          <p>
            {n === 1
              ? "It loses code execution; its threads are kept."
              : "They lose code execution; their threads are kept."}{" "}
            The sandbox's live instances are destroyed, with the files in them, and the runs open on it end. This cannot be
            undone.
          </p>
        </>
      ) : (
        <p>
          Delete <strong>{sandbox.name}</strong>? Its live instances are destroyed and the runs open on it end. This cannot
          be undone.
        </p>
      )}
    </ConfirmDialog>
  );
}
