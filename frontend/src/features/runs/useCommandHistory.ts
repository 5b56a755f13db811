import { useRef } from "react";

/** Shell-like history: up goes back through earlier commands, down comes forward to the draft. */
export function useCommandHistory() {
  const entries = useRef<string[]>([]);
  const position = useRef(0);
  const draft = useRef("");

  return {
    record(command: string) {
      if (command && entries.current[entries.current.length - 1] !== command) entries.current.push(command);
      position.current = entries.current.length;
      draft.current = "";
    },
    /** The command before the one shown, or null at the oldest. */
    back(current: string): string | null {
      if (position.current === 0) return null;
      if (position.current === entries.current.length) draft.current = current;
      position.current -= 1;
      return entries.current[position.current] ?? null;
    },
    /** The command after the one shown; past the newest, what was being typed. */
    forward(): string | null {
      if (position.current >= entries.current.length) return null;
      position.current += 1;
      return position.current === entries.current.length ? draft.current : (entries.current[position.current] ?? null);
    },
  };
}
