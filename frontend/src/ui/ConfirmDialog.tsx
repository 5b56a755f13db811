import * as AlertDialog from "@radix-ui/react-alert-dialog";
import type { ReactNode } from "react";
import { Button } from "./Button";
import { ProblemMessage } from "./ProblemMessage";
import { useReturnFocus } from "./useReturnFocus";

interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  busy?: boolean;
  error?: unknown;
  tone?: "danger" | "primary";
}

/** Asks before a destructive step; the confirm button stays until the step ends. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  children,
  confirmLabel,
  onConfirm,
  busy,
  error,
  tone = "danger",
}: ConfirmDialogProps) {
  const returnFocus = useReturnFocus();
  return (
    <AlertDialog.Root open={open} onOpenChange={onOpenChange}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog dialog--sm" {...returnFocus}>
          <header className="dialog__header">
            <AlertDialog.Title className="dialog__title">{title}</AlertDialog.Title>
          </header>
          <AlertDialog.Description asChild>
            <div className="dialog__description">{children}</div>
          </AlertDialog.Description>
          {error != null && <ProblemMessage error={error} />}
          <div className="dialog__footer">
            <AlertDialog.Cancel asChild>
              <Button>Cancel</Button>
            </AlertDialog.Cancel>
            <Button
              variant={tone}
              busy={busy}
              disabled={busy}
              onClick={(e) => {
                // Keep the dialog open until the step has ended (it may fail).
                e.preventDefault();
                onConfirm();
              }}
            >
              {confirmLabel}
            </Button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
