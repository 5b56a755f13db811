import type { QueryClient } from "@tanstack/react-query";
import { matchPath, Navigate, Route, Routes } from "react-router-dom";
import { prefetchSandboxes } from "../features/sandboxes/api/prefetch";
import { useSession } from "../session/SessionContext";
import { NotFound } from "./NotFound";
import { lazyScreen, Screen, type LazyScreen } from "./Screen";
import { Shell } from "./Shell";

// Each screen is its own chunk: the first load carries the shell and sign-in only.
const agentEditor = lazyScreen(() => import("../features/agents/AgentEditorPage"));
const screens: { path: string; screen: LazyScreen; adminOnly?: boolean }[] = [
  { path: "agents", screen: lazyScreen(() => import("../features/agents/AgentsPage")) },
  { path: "agents/new", screen: agentEditor },
  { path: "agents/:agentId", screen: agentEditor },
  { path: "agents/:agentId/threads", screen: lazyScreen(() => import("../features/runs/ThreadsPage")) },
  { path: "agents/:agentId/threads/:threadId", screen: lazyScreen(() => import("../features/runs/ThreadPage")) },
  { path: "runs/:runId?", screen: lazyScreen(() => import("../features/runs/RunConsolePage")) },
  { path: "sandboxes/:sandboxId", screen: lazyScreen(() => import("../features/sandboxes/SandboxPage")) },
  { path: "settings/sandboxes", screen: lazyScreen(() => import("../features/sandboxes/SandboxesPage"), prefetchSandboxes) },
  { path: "settings/tokens", screen: lazyScreen(() => import("../features/tokens/TokensPage")), adminOnly: true },
  { path: "settings/people", screen: lazyScreen(() => import("../features/people/PeoplePage")), adminOnly: true },
  // Not only for admins: a member who follows a link is told the API's answer.
  { path: "settings/audit", screen: lazyScreen(() => import("../features/audit/AuditPage")) },
  // Members see their workspace's totals; admins, by sandbox, agent and thread.
  { path: "settings/usage", screen: lazyScreen(() => import("../features/usage/UsagePage")) },
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
