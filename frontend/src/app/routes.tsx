import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useSyncExternalStore, type ComponentType } from "react";
import { matchPath, Navigate, Route, Routes } from "react-router-dom";
import { prefetchSandboxes } from "../features/sandboxes/api/prefetch";
import { useSession } from "../session/SessionContext";
import { Button } from "../ui/Button";
import { Loading } from "../ui/Loading";
import { ProblemMessage } from "../ui/ProblemMessage";
import { NotFound } from "./NotFound";
import { Shell } from "./Shell";

/**
 * A screen in a chunk of its own, with the data requests it starts while
 * that chunk loads. It is a store of the chunk's state (see Screen).
 */
interface LazyScreen {
  /** Asks for the chunk, once (again after a failure); settles when it has arrived or failed. */
  load: () => Promise<void>;
  prefetch?: (client: QueryClient) => Promise<void>;
  subscribe: (onChange: () => void) => () => void;
  state: () => ChunkState;
}

type ChunkState = { Page?: ComponentType; error?: unknown };

function lazyScreen(importPage: () => Promise<{ default: ComponentType }>, prefetch?: LazyScreen["prefetch"]): LazyScreen {
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

// Each screen is its own chunk: the first load carries the shell and sign-in only.
const agentEditor = lazyScreen(() => import("../features/agents/AgentEditorPage"));
const screens: { path: string; screen: LazyScreen; adminOnly?: boolean }[] = [
  { path: "agents", screen: lazyScreen(() => import("../features/agents/AgentsPage")) },
  { path: "agents/new", screen: agentEditor },
  { path: "agents/:agentId", screen: agentEditor },
  { path: "agents/:agentId/threads", screen: lazyScreen(() => import("../features/runs/ThreadsPage")) },
  { path: "agents/:agentId/threads/:threadId", screen: lazyScreen(() => import("../features/runs/ThreadPage")) },
  { path: "runs/:runId?", screen: lazyScreen(() => import("../features/runs/RunConsolePage")) },
  { path: "settings/sandboxes", screen: lazyScreen(() => import("../features/sandboxes/SandboxesPage"), prefetchSandboxes) },
  { path: "settings/tokens", screen: lazyScreen(() => import("../features/tokens/TokensPage")), adminOnly: true },
  // Not only for admins: a member who follows a link is told the API's answer.
  { path: "settings/audit", screen: lazyScreen(() => import("../features/audit/AuditPage")) },
];

/**
 * Asks for the code of the screen at pathname, and when signed in for its
 * data, as the app starts: they load while the session is checked instead
 * of after it. Settles when both have arrived (or failed).
 */
export function preloadScreen(client: QueryClient, pathname: string, signedIn: boolean): Promise<void> {
  const found = screens.find(({ path }) => matchPath("/" + path, pathname));
  if (!found) return Promise.resolve();
  const { load, prefetch } = found.screen;
  return Promise.all([load(), signedIn ? prefetch?.(client) : undefined]).then(() => undefined);
}

/**
 * A screen, shown as soon as its code is here, with its data requests
 * started while the code loads. Not React.lazy: that suspends even when the
 * chunk has already arrived, and a Suspense boundary that has shown its
 * fallback then holds the screen back for its throttle (300 ms).
 */
function Screen({ screen }: { screen: LazyScreen }) {
  const queryClient = useQueryClient();
  const { Page, error } = useSyncExternalStore(screen.subscribe, screen.state);
  useEffect(() => {
    void screen.load();
    void screen.prefetch?.(queryClient);
  }, [screen, queryClient]);
  if (Page) return <Page />;
  if (error) {
    // Most likely a new version was deployed and this chunk is gone: a reload gets the new one.
    return <ProblemMessage error={error} action={<Button onClick={() => window.location.reload()}>Reload</Button>} />;
  }
  return <Loading />;
}

export function AppRoutes() {
  const { isAdmin } = useSession();
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route index element={<Navigate to="/agents" replace />} />
        {screens
          .filter(({ adminOnly }) => isAdmin || !adminOnly)
          .map(({ path, screen }) => (
            <Route key={path} path={path} element={<Screen screen={screen} />} />
          ))}
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
