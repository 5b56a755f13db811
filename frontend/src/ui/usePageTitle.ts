import { useEffect } from "react";

/** Names the document after the screen, so history and screen readers say where one is. */
export function usePageTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Auxilia sandboxes`;
  }, [title]);
}
