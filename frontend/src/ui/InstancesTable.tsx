import { Pause, Play, Trash2 } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router-dom";
import type { SandboxInstance } from "../api/types";
import { Button } from "./Button";
import { ConfirmDialog } from "./ConfirmDialog";
import { Pill } from "./Pill";
import { ProblemMessage } from "./ProblemMessage";
import { timeAgo } from "./time";
import { useInstanceAction, type InstanceAction } from "../api/instances";

const stateTones = { creating: "accent", live: "ok", paused: "neutral" } as const;

interface InstancesTableProps {
  instances: SandboxInstance[];
  /** The instance's provider can pause it (its capabilities say pause_resume). */
  canPause: (instance: SandboxInstance) => boolean;
  /** A column naming each instance's sandbox, for a list across sandboxes. */
  showSandbox?: boolean;
  /** What an empty list says. */
  empty?: string;
}

/** Live instances: thread, state, age, last use; pause, resume and destroy. */
export function InstancesTable({
  instances,
  canPause,
  showSandbox = false,
  empty = "No live instances: a thread's first run makes one.",
}: InstancesTableProps) {
  const act = useInstanceAction();
  const [destroying, setDestroying] = useState<SandboxInstance | null>(null);
  const run = (instance: SandboxInstance, action: InstanceAction, onSuccess?: () => void) =>
    act.mutate({ sandboxId: instance.sandbox_id, instanceId: instance.id, action }, { onSuccess });

  if (instances.length === 0) {
    return <p className="muted">{empty}</p>;
  }
  const busyOn = (id: string, action: InstanceAction) =>
    act.isPending && act.variables?.instanceId === id && act.variables.action === action;

  return (
    <>
      {act.error && !destroying && <ProblemMessage error={act.error} />}
      <div className="table-scroll">
        <table className="table">
          <caption className="visually-hidden">Live instances</caption>
          <thead>
            <tr>
              <th scope="col">Thread</th>
              {showSandbox && <th scope="col">Sandbox</th>}
              <th scope="col">State</th>
              <th scope="col">Made</th>
              <th scope="col">Last use</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {instances.map((instance) => {
              const name = instance.thread ? `${instance.thread.agent_name} · ${instance.thread.thread_id}` : "warm pool";
              return (
                <tr key={instance.id} aria-label={`Instance of ${name}`}>
                  <td>
                    {instance.thread ? (
                      <Link to={`/agents/${instance.thread.agent_id}/threads/${encodeURIComponent(instance.thread.thread_id)}`}>
                        {instance.thread.agent_name} <span className="mono">{instance.thread.thread_id}</span>
                      </Link>
                    ) : (
                      <span className="muted">Warm pool (no thread yet)</span>
                    )}
                    {instance.provider_ref && <div className="mono muted small truncate">{instance.provider_ref}</div>}
                  </td>
                  {showSandbox && (
                    <td>
                      <span className="table__label">Sandbox </span>
                      <Link to={`/sandboxes/${instance.sandbox_id}`}>{instance.sandbox_name}</Link>
                    </td>
                  )}
                  <td>
                    <Pill tone={stateTones[instance.state]}>{instance.state}</Pill>
                  </td>
                  <td className="nowrap">
                    <span className="table__label">Made </span>
                    <time dateTime={instance.created_at} title={new Date(instance.created_at).toLocaleString()}>
                      {timeAgo(instance.created_at)}
                    </time>
                  </td>
                  <td className="nowrap">
                    <span className="table__label">Last used </span>
                    {instance.last_used_at ? (
                      <time dateTime={instance.last_used_at} title={new Date(instance.last_used_at).toLocaleString()}>
                        {timeAgo(instance.last_used_at)}
                      </time>
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                  <td>
                    <div className="table__actions">
                      {canPause(instance) && instance.state === "live" && (
                        <Button
                          size="sm"
                          variant="ghost"
                          aria-label={`Pause instance of ${name}`}
                          busy={busyOn(instance.id, "pause")}
                          disabled={act.isPending}
                          onClick={() => run(instance, "pause")}
                        >
                          <Pause size={14} aria-hidden="true" /> Pause
                        </Button>
                      )}
                      {instance.state === "paused" && (
                        <Button
                          size="sm"
                          variant="ghost"
                          aria-label={`Resume instance of ${name}`}
                          busy={busyOn(instance.id, "resume")}
                          disabled={act.isPending}
                          onClick={() => run(instance, "resume")}
                        >
                          <Play size={14} aria-hidden="true" /> Resume
                        </Button>
                      )}
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-label={`Destroy instance of ${name}`}
                        disabled={act.isPending}
                        onClick={() => {
                          act.reset();
                          setDestroying(instance);
                        }}
                      >
                        <Trash2 size={14} aria-hidden="true" /> Destroy
                      </Button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {destroying && (
        <ConfirmDialog
          open
          onOpenChange={(open) => {
            if (!open) {
              act.reset();
              setDestroying(null);
            }
          }}
          title="Destroy instance"
          confirmLabel="Destroy instance"
          busy={act.isPending}
          error={act.error ?? undefined}
          onConfirm={() => run(destroying, "destroy", () => setDestroying(null))}
        >
          {destroying.thread ? (
            <p>
              The instance of thread <strong>{destroying.thread.thread_id}</strong> ({destroying.thread.agent_name}) is
              destroyed at its provider with every file in it, and an open run on the thread loses them. The thread's next
              run makes a new instance.
            </p>
          ) : (
            <p>This warm pool instance is destroyed; the pool makes another.</p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
