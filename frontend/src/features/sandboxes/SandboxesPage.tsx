import { Plus } from "lucide-react";
import { useState } from "react";
import type { Sandbox } from "../../api/types";
import { usePageTitle } from "../../app/usePageTitle";
import { useSession } from "../../session/SessionContext";
import { Button } from "../../ui/Button";
import { EmptyState } from "../../ui/EmptyState";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useProviders } from "./api/listProviders";
import { useSandboxes } from "./api/listSandboxes";
import { DeleteSandboxDialog } from "./DeleteSandboxDialog";
import { SandboxDialog } from "./dialog/SandboxDialog";
import { SandboxRow } from "./SandboxRow";
import "./sandboxes.css";

type Editing = { mode: "add" } | { mode: "edit"; id: string } | null;

export default function SandboxesPage() {
  usePageTitle("Sandboxes");
  const { isAdmin } = useSession();
  const sandboxes = useSandboxes();
  const providers = useProviders();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Sandbox | null>(null);

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
      {content}
      {isAdmin && (
        <SandboxDialog
          open={editing !== null}
          onOpenChange={(open) => !open && setEditing(null)}
          sandboxId={editing?.mode === "edit" ? editing.id : undefined}
        />
      )}
      {deleting && (
        <DeleteSandboxDialog sandbox={deleting} open onOpenChange={(open) => !open && setDeleting(null)} />
      )}
    </div>
  );
}
