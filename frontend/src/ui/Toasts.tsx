import { X } from "lucide-react";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";

/** How long a note stays unless the pointer or focus rests on it. */
const shownForMs = 6000;

interface Toast {
  id: number;
  message: string;
}

type Notify = (message: string) => void;

// Without a provider (a screen rendered on its own), notes go nowhere.
const ToastContext = createContext<Notify>(() => {});

/** Says, briefly and politely, that something was done: "Saved Team box." */
export function useToast(): Notify {
  return useContext(ToastContext);
}

/**
 * Notes that a save, create or delete went through, read out by screen
 * readers and gone after a few seconds (held while hovered or focused).
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(0);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const notify = useCallback<Notify>((message) => {
    const id = ++next.current;
    setToasts((all) => [...all.slice(-2), { id, message }]);
  }, []);
  const value = useMemo(() => notify, [notify]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite" aria-label="Notifications">
        {toasts.map((t) => (
          <ToastNote key={t.id} toast={t} onDismiss={dismiss} />
        ))}
      </div>
    </ToastContext.Provider>
  );
}

function ToastNote({ toast, onDismiss }: { toast: Toast; onDismiss: (id: number) => void }) {
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (held) return;
    const timer = window.setTimeout(() => onDismiss(toast.id), shownForMs);
    return () => window.clearTimeout(timer);
  }, [held, onDismiss, toast.id]);
  return (
    <div
      className="toast"
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <span>{toast.message}</span>
      <button type="button" className="toast__close" aria-label="Dismiss" onClick={() => onDismiss(toast.id)}>
        <X size={14} aria-hidden="true" />
      </button>
    </div>
  );
}
