import { useRef } from "react";

/**
 * Radix returns focus to a Dialog.Trigger; our dialogs are opened from
 * state, not triggers, so this remembers whatever opened them and focuses it
 * again on close (or the main region, if that element has gone, as after a delete).
 */
export function useReturnFocus() {
  const opener = useRef<HTMLElement | null>(null);
  return {
    onOpenAutoFocus: () => {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    },
    onCloseAutoFocus: (event: Event) => {
      event.preventDefault();
      const target = opener.current?.isConnected ? opener.current : document.getElementById("main");
      target?.focus();
      opener.current = null;
    },
  };
}
