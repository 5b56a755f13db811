import { useEffect, useSyncExternalStore, type ComponentType } from "react";
import { Button } from "./Button";
import { ProblemMessage } from "./ProblemMessage";

/**
 * A component in a chunk of its own, as a store of that chunk's state: a
 * loaded chunk renders at once, where React.lazy would suspend again, and a
 * Suspense boundary that has shown its fallback then holds the content back
 * for its throttle (300 ms).
 */
export interface LazyComponent<P extends object> {
  /** Asks for the chunk, once (again after a failure); settles when it has arrived or failed. */
  load: () => Promise<void>;
  subscribe: (onChange: () => void) => () => void;
  state: () => LazyState<P>;
}

type LazyState<P extends object> = { Component?: ComponentType<P>; error?: unknown };

export function lazyComponent<P extends object>(importComponent: () => Promise<ComponentType<P>>): LazyComponent<P> {
  let state: LazyState<P> = {};
  let loading: Promise<void> | null = null;
  const listeners = new Set<() => void>();
  const settle = (next: LazyState<P>) => {
    state = next;
    for (const listener of listeners) listener();
  };
  return {
    load() {
      loading ??= importComponent().then(
        (Component) => settle({ Component }),
        (error: unknown) => {
          loading = null;
          settle({ error });
        },
      );
      return loading;
    },
    subscribe(onChange) {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    state: () => state,
  };
}

/** The component once its chunk is here, asked for while wanted; or why it could not be loaded. */
export function useLazyComponent<P extends object>(lazy: LazyComponent<P>, wanted = true): LazyState<P> {
  const state = useSyncExternalStore(lazy.subscribe, lazy.state);
  useEffect(() => {
    if (wanted) void lazy.load();
  }, [lazy, wanted]);
  return state;
}

/**
 * Asks for chunks once the browser is idle: what a screen may open next,
 * fetched after the screen has shown rather than while it loads.
 */
export function loadWhenIdle(...lazies: Pick<LazyComponent<object>, "load">[]): () => void {
  const load = () => lazies.forEach((lazy) => void lazy.load());
  if ("requestIdleCallback" in window) {
    const handle = window.requestIdleCallback(load, { timeout: 2000 });
    return () => window.cancelIdleCallback(handle);
  }
  const handle = setTimeout(load, 0);
  return () => clearTimeout(handle);
}

/**
 * What shows when a chunk could not be fetched: the network failed, or a new
 * version was deployed and the chunk is gone; a reload gets the new one.
 */
export function ChunkFailed({ part }: { part: string }) {
  const error = new Error(`${part} could not be loaded. Reload the page to try again.`);
  return <ProblemMessage error={error} action={<Button onClick={() => window.location.reload()}>Reload</Button>} />;
}
