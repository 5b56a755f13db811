import { useState } from "react";
import { Link } from "react-router-dom";
import type { Sandbox } from "../../api/types";
import { Button } from "../../ui/Button";
import { Dialog, DialogFooter } from "../../ui/Dialog";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useProviders } from "../../api/listProviders";
import { useSandboxes } from "../../api/listSandboxes";
import { ProviderIcon } from "../../ui/ProviderIcon";
import { useSession } from "../../session/SessionContext";
import { FailingSandboxWarning, HealthSummary } from "../../ui/SandboxHealthNote";

interface AddToolDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The agent already has a sandbox: another cannot be added. */
  hasSandbox: boolean;
  onAdd: (sandbox: Sandbox) => void;
}

/** Add tool: its Sandboxes section lists the workspace's registered sandboxes. */
export function AddToolDialog({ open, onOpenChange, hasSandbox, onAdd }: AddToolDialogProps) {
  const sandboxes = useSandboxes();
  const providers = useProviders();
  const { isAdmin } = useSession();
  const [picked, setPicked] = useState<string>();

  const close = (next: boolean) => {
    if (!next) setPicked(undefined);
    onOpenChange(next);
  };
  const add = () => {
    const sandbox = sandboxes.data?.find((s) => s.id === picked);
    if (!sandbox) return;
    onAdd(sandbox);
    close(false);
  };

  const list = sandboxes.data ?? [];
  const pickedSandbox = list.find((s) => s.id === picked);
  const showSandboxes = !hasSandbox && list.length > 0;
  const title = (name: string) => providers.data?.find((p) => p.name === name)?.title ?? name;

  let body;
  if (sandboxes.isPending) body = <Loading />;
  else if (sandboxes.isError)
    body = <ProblemMessage error={sandboxes.error} action={<Button size="sm" onClick={() => sandboxes.refetch()}>Retry</Button>} />;
  else if (hasSandbox)
    body = <p className="muted">This agent already has a sandbox. Remove it first to pick another.</p>;
  else if (list.length === 0)
    body = isAdmin ? (
      <p className="muted">
        No sandboxes are registered in this workspace yet. <Link to="/settings/sandboxes">Add one in Settings → Sandboxes</Link>,
        then come back to bind it.
      </p>
    ) : (
      <p className="muted">No sandboxes are registered in this workspace. An admin adds them under Settings → Sandboxes.</p>
    );

  return (
    <Dialog open={open} onOpenChange={close} title="Add tool" description="Give the agent a capability.">
      {body}
      {showSandboxes && (
        <fieldset className="tool-picker">
          <legend className="form-section-title">Sandboxes</legend>
          <p className="muted">Code execution: the agent runs commands and works with files in a live sandbox.</p>
          <div className="tool-picker__options">
            {list.map((sandbox) => (
              <label key={sandbox.id} className={picked === sandbox.id ? "pick-card pick-card--selected" : "pick-card"}>
                <input
                  type="radio"
                  name="sandbox"
                  className="card-radio"
                  value={sandbox.id}
                  checked={picked === sandbox.id}
                  onChange={() => setPicked(sandbox.id)}
                />
                <ProviderIcon provider={sandbox.provider} />
                <span className="list-row__main">
                  <span className="list-row__title">
                    <span className="truncate">{sandbox.name}</span>
                    <Pill tone="accent">{title(sandbox.provider)}</Pill>
                  </span>
                  {sandbox.description && <span className="muted truncate">{sandbox.description}</span>}
                  <HealthSummary health={sandbox.health} />
                </span>
              </label>
            ))}
          </div>
          {pickedSandbox && <FailingSandboxWarning name={pickedSandbox.name} health={pickedSandbox.health} />}
        </fieldset>
      )}
      <DialogFooter>
        <Button onClick={() => close(false)}>Cancel</Button>
        <Button variant="primary" disabled={!showSandboxes || picked === undefined} onClick={add}>
          Add
        </Button>
      </DialogFooter>
    </Dialog>
  );
}
