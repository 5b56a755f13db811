import { Plus } from "lucide-react";
import { useEffect, useState } from "react";
import type { Sandbox } from "../../api/types";
import { ChunkFailed, lazyComponent, loadWhenIdle, useLazyComponent } from "../../ui/lazy";
import { usePageTitle } from "../../ui/usePageTitle";
import { useSession } from "../../session/SessionContext";
import { Button } from "../../ui/Button";
import { EmptyState } from "../../ui/EmptyState";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useProviders } from "../../api/listProviders";
import { useSandboxes } from "../../api/listSandboxes";
import { SandboxRow } from "./SandboxRow";
import "./sandboxes.css";

// The dialogs (a form, a provider picker, Radix's dialog) are not needed to
// show the list: they load once it has shown, or when asked for first.
const sandboxDialog = lazyComponent(() => import("./dialog/SandboxDialog").then((module) => module.SandboxDialog));
const deleteSandboxDialog = lazyComponent(() => import("./DeleteSandboxDialog").then((module) => module.DeleteSandboxDialog));

type Editing = { mode: "add" } | { mode: "edit"; id: string } | null;

export default function SandboxesPage() {
  usePageTitle("Sandboxes");
  const { isAdmin } = useSession();
  const sandboxes = useSandboxes();
  const providers = useProviders();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Sandbox | null>(null);
  const { Component: SandboxDialog, error: sandboxDialogError } = useLazyComponent(sandboxDialog, editing !== null);
  const { Component: DeleteSandboxDialog, error: deleteDialogError } = useLazyComponent(deleteSandboxDialog, deleting !== null);
  const dialogFailed = (editing && sandboxDialogError) || (deleting && deleteDialogError);
  useEffect(() => (isAdmin ? loadWhenIdle(sandboxDialog, deleteSandboxDialog) : undefined), [isAdmin]);

  const providerTitle = (name: string) => providers.data?.find((p) => p.name === name)?.title ?? name;
  const addButton = isAdmin && (
    <Button variant="primary" onClick={() => setEditing({ mode: "add" })}>
      <Plus size={14} aria-hidden="true" /> Add sandbox
    </Button>
  );

  let content;
  if (sandboxes.isPending) {
    content = <Loading label="Loading sandboxes…" />;
  } else if (sandboxes.isError) {
    content = (
      <ProblemMessage
        error={sandboxes.error}
        action={
          <Button size="sm" onClick={() => sandboxes.refetch()}>
            Retry
          </Button>
        }
      />
    );
  } else if (sandboxes.data.length === 0) {
    content = <EmptyState action={addButton}>No sandboxes yet. Add one to give agents code execution.</EmptyState>;
  } else {
    content = (
      <ul className="list" aria-label="Sandboxes">
        {sandboxes.data.map((sandbox) => (
          <SandboxRow
            key={sandbox.id}
            sandbox={sandbox}
            providerTitle={providerTitle(sandbox.provider)}
            canManage={isAdmin}
            onEdit={() => setEditing({ mode: "edit", id: sandbox.id })}
            onDelete={() => setDeleting(sandbox)}
          />
        ))}
      </ul>
    );
  }

  return (
    <div className="page">
      <header className="page-header">
        <h1>
          Sandboxes <Pill tone="accent">admin</Pill>
        </h1>
        <span className="spacer" />
        {sandboxes.data && sandboxes.data.length > 0 && addButton}
        <p className="page-header__lead">
          Code-execution runtimes that agents can use as a tool.
          {!isAdmin && " Only admins can add, edit or delete them."}
        </p>
      </header>
      {dialogFailed ? <ChunkFailed part="This dialog" /> : null}
      {content}
      {isAdmin && SandboxDialog && (
        <SandboxDialog
          open={editing !== null}
          onOpenChange={(open) => !open && setEditing(null)}
          sandboxId={editing?.mode === "edit" ? editing.id : undefined}
        />
      )}
      {deleting && DeleteSandboxDialog && (
        <DeleteSandboxDialog sandbox={deleting} open onOpenChange={(open) => !open && setDeleting(null)} />
      )}
    </div>
  );
}
