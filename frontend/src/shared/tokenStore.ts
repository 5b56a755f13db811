// The API token lives in sessionStorage by default: it survives reloads of
// this tab and nothing else (other tabs and a closed browser start signed
// out). "Keep me signed in on this device" puts it in localStorage instead,
// shared by this browser's tabs until sign-out, which clears both.
const key = "auxilia.token";
// A person signed in with the identity provider holds a session cookie the
// page cannot read, and beside it this one, which it can: the CSRF token
// every request sends back. Its presence is what says a session may be open.
const csrfCookie = "auxilia_csrf";

function readCSRF(): string | null {
  if (typeof document === "undefined") return null;
  for (const part of document.cookie.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === csrfCookie && value.join("=") !== "") return value.join("=");
  }
  return null;
}
const listeners = new Set<() => void>();
// Why the last session ended, when the server ended it rather than the person.
let endedBecause: string | null = null;

function emit() {
  for (const listener of listeners) listener();
}

// Another tab signing in or out on this device changes what this tab holds.
if (typeof window !== "undefined") {
  window.addEventListener("storage", (e) => {
    if (e.key === key || e.key === null) emit();
  });
}

function read(storage: () => Storage): string | null {
  try {
    return storage().getItem(key);
  } catch {
    return null;
  }
}

function remove(storage: () => Storage) {
  try {
    storage().removeItem(key);
  } catch {
    // Storage refused (private mode): there is nothing kept to remove.
  }
}

export const tokenStore = {
  get(): string | null {
    return read(() => sessionStorage) ?? read(() => localStorage);
  },
  /** Keeps the token for this tab, or for this device when `remember` is on. */
  set(token: string, remember = false) {
    endedBecause = null;
    if (remember) {
      localStorage.setItem(key, token);
      remove(() => sessionStorage);
    } else {
      sessionStorage.setItem(key, token);
      remove(() => localStorage);
    }
    emit();
  },
  /** The console session's CSRF token, when signed in with the identity provider. */
  csrf(): string | null {
    return readCSRF();
  },
  /** Whether a token is kept or a console session may be open. */
  signedIn(): boolean {
    return tokenStore.get() !== null || readCSRF() !== null;
  },
  /** Signs out, of this tab and of this device; `because` is shown on the sign-in screen. */
  clear(because: string | null = null) {
    endedBecause = because;
    remove(() => sessionStorage);
    remove(() => localStorage);
    if (typeof document !== "undefined") document.cookie = `${csrfCookie}=; Max-Age=0; Path=/`;
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
