import * as RadixDialog from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Button } from "./Button";
import { useReturnFocus } from "./useReturnFocus";

interface DialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  size?: "sm" | "md" | "lg";
  /** The dialog holds changes not saved: Escape, Close or a click outside asks before discarding them. */
  dirty?: boolean;
  children: ReactNode;
}

/**
 * A modal dialog: traps focus, closes on Escape, returns focus to its
 * opener. A dirty one asks before it closes and loses what was typed.
 */
export function Dialog({ open, onOpenChange, title, description, size = "md", dirty = false, children }: DialogProps) {
  const returnFocus = useReturnFocus(open);
  const [asking, setAsking] = useState(false);
  const change = (next: boolean) => {
    if (!next && dirty && !asking) {
      setAsking(true);
      return;
    }
    setAsking(false);
    onOpenChange(next);
  };
  return (
    <RadixDialog.Root open={open} onOpenChange={change}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="dialog-overlay" />
        <RadixDialog.Content
          className={`dialog dialog--${size}`}
          {...returnFocus}
          {...(description ? {} : { "aria-describedby": undefined })}
        >
          <header className="dialog__header">
            <RadixDialog.Title className="dialog__title">{title}</RadixDialog.Title>
            <RadixDialog.Close className="icon-btn" aria-label="Close">
              <X size={16} aria-hidden="true" />
            </RadixDialog.Close>
          </header>
          {description && <RadixDialog.Description className="dialog__description">{description}</RadixDialog.Description>}
          {asking && dirty && (
            <div className="notice dialog__discard" role="alert">
              <p>Close and lose the changes made here?</p>
              <div className="dialog__discard-actions">
                <Button size="sm" variant="primary" autoFocus onClick={() => setAsking(false)}>
                  Keep editing
                </Button>
                <Button size="sm" variant="danger" onClick={() => change(false)}>
                  Discard changes
                </Button>
              </div>
            </div>
          )}
          {children}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

/**
 * The dialog's Cancel: it closes the dialog as Escape does, so a dirty one
 * asks before discarding what was typed.
 */
export function DialogCancel({ children = "Cancel" }: { children?: ReactNode }) {
  return (
    <RadixDialog.Close asChild>
      <Button>{children}</Button>
    </RadixDialog.Close>
  );
}

/** The row of buttons at the bottom of a dialog, with room for a problem above them. */
export function DialogFooter({ children }: { children: ReactNode }) {
  return <div className="dialog__footer">{children}</div>;
}
