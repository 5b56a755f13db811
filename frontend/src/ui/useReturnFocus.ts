import { useLayoutEffect, useRef } from "react";

const focused = () => (document.activeElement instanceof HTMLElement ? document.activeElement : null);

/**
 * Radix returns focus to a Dialog.Trigger; our dialogs are opened from
 * state, not triggers, so this remembers whatever opened them and focuses it
 * again on close (or the main region, if that element has gone, as after a delete).
 * Given `open`, the opener is remembered as the dialog opens, before a field
 * inside it that focuses itself can take its place.
 */
export function useReturnFocus(open?: boolean) {
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (open && !opener.current) opener.current = focused();
  }, [open]);
  return {
    onOpenAutoFocus: () => {
      opener.current ??= focused();
    },
    onCloseAutoFocus: (event: Event) => {
      event.preventDefault();
      const target = opener.current?.isConnected ? opener.current : document.getElementById("main");
      target?.focus();
      opener.current = null;
    },
  };
}
