import { useSyncExternalStore } from "react";

/** The width below which the console lays itself out for a phone (as the CSS does). */
export const narrowQuery = "(max-width: 760px)";

function subscribe(onChange: () => void) {
  const list = window.matchMedia(narrowQuery);
  list.addEventListener("change", onChange);
  return () => list.removeEventListener("change", onChange);
}

/** Whether the window is narrow now, following it as it changes. */
export function useNarrow(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(narrowQuery).matches,
    () => false,
  );
}
