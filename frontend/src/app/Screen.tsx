import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore, type ComponentType } from "react";
import { Button } from "../ui/Button";
import { Loading } from "../ui/Loading";
import { ProblemMessage } from "../ui/ProblemMessage";

/**
 * A screen in a chunk of its own, with the data requests it starts while
 * that chunk loads. It is a store of the chunk's state (see Screen).
 */
export interface LazyScreen {
  /** Asks for the chunk, once (again after a failure); settles when it has arrived or failed. */
  load: () => Promise<void>;
  prefetch?: (client: QueryClient) => Promise<void>;
  subscribe: (onChange: () => void) => () => void;
  state: () => ChunkState;
}

type ChunkState = { Page?: ComponentType; error?: unknown };

const chunkFailed = new Error("This screen could not be loaded. Reload the page to try again.");

export function lazyScreen(importPage: () => Promise<{ default: ComponentType }>, prefetch?: LazyScreen["prefetch"]): LazyScreen {
  let state: ChunkState = {};
  let loading: Promise<void> | null = null;
  const listeners = new Set<() => void>();
  const settle = (next: ChunkState) => {
    state = next;
    for (const listener of listeners) listener();
  };
  return {
    load() {
      loading ??= importPage().then(
        (module) => settle({ Page: module.default }),
        (error: unknown) => {
          loading = null;
          settle({ error });
        },
      );
      return loading;
    },
    prefetch,
    subscribe(onChange) {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    state: () => state,
  };
}

/**
 * A screen, shown as soon as its code is here, with its data requests
 * started while the code loads. Not React.lazy: that suspends even when the
 * chunk has already arrived, and a Suspense boundary that has shown its
 * fallback then holds the screen back for its throttle (300 ms).
 */
export function Screen({ screen }: { screen: LazyScreen }) {
  const queryClient = useQueryClient();
  const { Page, error } = useSyncExternalStore(screen.subscribe, screen.state);
  useEffect(() => {
    void screen.load();
    void screen.prefetch?.(queryClient);
  }, [screen, queryClient]);
  if (Page) return <Page />;
  if (error) {
    // The network failed, or a new version was deployed and this chunk is gone: a reload gets the new one.
    return <ProblemMessage error={chunkFailed} action={<Button onClick={() => window.location.reload()}>Reload</Button>} />;
  }
  return <Loading />;
}
