import { useState } from "react";
import type { ProbeResult } from "../../../api/types";
import { Button } from "../../../ui/Button";
import { Dialog } from "../../../ui/Dialog";
import { Loading } from "../../../ui/Loading";
import { ProblemMessage } from "../../../ui/ProblemMessage";
import { useSandbox } from "../api/getSandbox";
import { useProbeSandbox } from "../api/probeSandbox";
import { useSecretHint } from "../api/getSecretHint";
import { useProviders } from "../../../api/listProviders";
import { SandboxForm } from "./SandboxForm";
import { SaveTestFailure } from "./SaveTestFailure";

interface SandboxDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Edit this sandbox; without it the dialog adds one. */
  sandboxId?: string;
}

/** A save whose connection test failed: the sandbox saved and the probe's answer. */
interface FailedTest {
  id: string;
  result: ProbeResult;
}

/**
 * Add or Edit sandbox: waits for the provider catalogue (and the saved
 * sandbox), then shows the form. Saving tests the connection; when the test
 * fails the dialog stays open with the reason, and edits the saved sandbox.
 */
export function SandboxDialog({ open, onOpenChange, sandboxId }: SandboxDialogProps) {
  const [failed, setFailed] = useState<FailedTest>();
  // A sandbox added here whose test failed is edited from then on, not added again.
  const [addedId, setAddedId] = useState<string>();
  // The form holds changes not saved: closing asks before discarding them.
  const [dirty, setDirty] = useState(false);
  const id = sandboxId ?? addedId;
  const editing = id !== undefined;
  const providers = useProviders();
  const saved = useSandbox(open ? id : undefined);
  const hint = useSecretHint(open ? id : undefined);
  const retest = useProbeSandbox();
  const queries = editing ? [providers, saved, hint] : [providers];
  const broken = queries.find((q) => q.isError);

  const close = (next: boolean) => {
    if (!next) {
      setFailed(undefined);
      setAddedId(undefined);
      setDirty(false);
      retest.reset();
    }
    onOpenChange(next);
  };

  let body;
  if (failed) {
    body = (
      <SaveTestFailure
        name={saved.data?.sandbox.name ?? "the sandbox"}
        result={failed.result}
        testing={retest.isPending}
        onTestAgain={() =>
          retest.mutate(
            { id: failed.id },
            { onSuccess: (result) => (result.ok ? close(false) : setFailed({ id: failed.id, result })) },
          )
        }
        onEdit={() => {
          setFailed(undefined);
          void saved.refetch();
        }}
        onClose={() => close(false)}
      />
    );
  } else if (broken) {
    body = (
      <ProblemMessage
        error={broken.error}
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
        key={saved.data?.etag ?? "new"}
        providers={providers.data}
        saved={editing ? saved.data : undefined}
        hint={editing ? hint.data : undefined}
        onDone={() => close(false)}
        onDirtyChange={setDirty}
        onTestFailed={(savedId, result) => {
          if (!sandboxId) setAddedId(savedId);
          setFailed({ id: savedId, result });
        }}
      />
    );
  }

  return (
    <Dialog
      open={open}
      onOpenChange={close}
      title={failed ? "Sandbox saved" : editing ? "Edit sandbox" : "Add sandbox"}
      size="lg"
      dirty={dirty && !failed}
    >
      {body}
    </Dialog>
  );
}
