import { useCallback, useEffect, useRef } from "react";
import { useBlocker } from "react-router-dom";
import { ConfirmDialog } from "./ConfirmDialog";

/**
 * Keeps what a person typed from being lost silently: while dirty, leaving
 * the page in the app asks first (UnsavedChangesPrompt shows the question),
 * and reloading or closing the tab gets the browser's own question.
 */
export function useUnsavedChanges(dirty: boolean) {
  // A navigation the page makes itself once its work is saved or deleted is let through.
  const letThrough = useRef(false);
  const blocker = useBlocker(({ currentLocation, nextLocation }) => {
    if (letThrough.current) {
      letThrough.current = false;
      return false;
    }
    return dirty && currentLocation.pathname !== nextLocation.pathname;
  });
  const allowNextNavigation = useCallback(() => {
    letThrough.current = true;
  }, []);
  useEffect(() => {
    if (!dirty) return;
    const ask = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Older browsers show the question only when returnValue is set.
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", ask);
    return () => window.removeEventListener("beforeunload", ask);
  }, [dirty]);
  // Saved meanwhile (or changes undone): a question still open goes.
  useEffect(() => {
    if (!dirty && blocker.state === "blocked") blocker.reset();
  }, [dirty, blocker]);
  return { blocker, allowNextNavigation };
}

/** Asks whether to leave a page with unsaved changes: Stay is the safe answer. */
export function UnsavedChangesPrompt({ blocker }: { blocker: ReturnType<typeof useBlocker> }) {
  const open = blocker.state === "blocked";
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={(next) => {
        if (!next && blocker.state === "blocked") blocker.reset();
      }}
      title="Leave without saving?"
      confirmLabel="Leave and lose changes"
      onConfirm={() => blocker.state === "blocked" && blocker.proceed()}
    >
      <p>This page has changes that are not saved. Leaving now loses them; Cancel keeps you here to save them.</p>
    </ConfirmDialog>
  );
}
