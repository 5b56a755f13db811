// The API token lives in sessionStorage: it survives reloads of this tab and
// nothing else (other tabs and a closed browser start signed out).
const key = "auxilia.token";
const listeners = new Set<() => void>();
// Why the last session ended, when the server ended it rather than the person.
let endedBecause: string | null = null;

function emit() {
  for (const listener of listeners) listener();
}

export const tokenStore = {
  get(): string | null {
    try {
      return sessionStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(token: string) {
    endedBecause = null;
    sessionStorage.setItem(key, token);
    emit();
  },
  /** Signs out; `because` is shown on the sign-in screen. */
  clear(because: string | null = null) {
    endedBecause = because;
    sessionStorage.removeItem(key);
    emit();
  },
  endedBecause(): string | null {
    return endedBecause;
  },
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
