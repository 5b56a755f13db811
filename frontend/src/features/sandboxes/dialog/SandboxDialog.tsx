import { Button } from "../../../ui/Button";
import { Dialog } from "../../../ui/Dialog";
import { Loading } from "../../../ui/Loading";
import { ProblemMessage } from "../../../ui/ProblemMessage";
import { useSandbox } from "../api/getSandbox";
import { useSecretHint } from "../api/getSecretHint";
import { useProviders } from "../../../api/listProviders";
import { SandboxForm } from "./SandboxForm";

interface SandboxDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Edit this sandbox; without it the dialog adds one. */
  sandboxId?: string;
}

/** Add or Edit sandbox: waits for the provider catalogue (and the saved sandbox), then shows the form. */
export function SandboxDialog({ open, onOpenChange, sandboxId }: SandboxDialogProps) {
  const editing = sandboxId !== undefined;
  const providers = useProviders();
  const saved = useSandbox(open ? sandboxId : undefined);
  const hint = useSecretHint(open ? sandboxId : undefined);
  const queries = editing ? [providers, saved, hint] : [providers];
  const failed = queries.find((q) => q.isError);

  let body;
  if (failed) {
    body = (
      <ProblemMessage
        error={failed.error}
        action={
          <Button size="sm" onClick={() => queries.forEach((q) => q.isError && q.refetch())}>
            Retry
          </Button>
        }
      />
    );
  } else if (!providers.data || (editing && (!saved.data || !hint.data))) {
    body = <Loading />;
  } else {
    body = (
      <SandboxForm
        providers={providers.data}
        saved={saved.data}
        hint={editing ? hint.data : undefined}
        onDone={() => onOpenChange(false)}
      />
    );
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={editing ? "Edit sandbox" : "Add sandbox"} size="lg">
      {body}
    </Dialog>
  );
}
