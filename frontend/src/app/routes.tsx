import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useEffect, type ReactNode } from "react";
import { Navigate, Route, Routes } from "react-router-dom";
import { prefetchSandboxes } from "../features/sandboxes/api/prefetch";
import { useSession } from "../session/SessionContext";
import { Loading } from "../ui/Loading";
import { NotFound } from "./NotFound";
import { Shell } from "./Shell";

// Each screen is its own chunk: the first load carries the shell and sign-in only.
const SandboxesPage = lazy(() => import("../features/sandboxes/SandboxesPage"));
const AgentsPage = lazy(() => import("../features/agents/AgentsPage"));
const AgentEditorPage = lazy(() => import("../features/agents/AgentEditorPage"));
const RunConsolePage = lazy(() => import("../features/runs/RunConsolePage"));
const ThreadsPage = lazy(() => import("../features/runs/ThreadsPage"));
const ThreadPage = lazy(() => import("../features/runs/ThreadPage"));
const TokensPage = lazy(() => import("../features/tokens/TokensPage"));
const AuditPage = lazy(() => import("../features/audit/AuditPage"));

/** A lazily loaded screen; prefetch starts its data requests while its chunk loads. */
function Screen({ children, prefetch }: { children: ReactNode; prefetch?: (client: QueryClient) => void }) {
  const queryClient = useQueryClient();
  useEffect(() => prefetch?.(queryClient), [prefetch, queryClient]); // right after the chunk is asked for
  return <Suspense fallback={<Loading />}>{children}</Suspense>;
}

export function AppRoutes() {
  const { isAdmin } = useSession();
  return (
    <Routes>
      <Route element={<Shell />}>
        <Route index element={<Navigate to="/agents" replace />} />
        <Route path="agents" element={<Screen><AgentsPage /></Screen>} />
        <Route path="agents/new" element={<Screen><AgentEditorPage /></Screen>} />
        <Route path="agents/:agentId" element={<Screen><AgentEditorPage /></Screen>} />
        <Route path="agents/:agentId/threads" element={<Screen><ThreadsPage /></Screen>} />
        <Route path="agents/:agentId/threads/:threadId" element={<Screen><ThreadPage /></Screen>} />
        <Route path="runs/:runId?" element={<Screen><RunConsolePage /></Screen>} />
        <Route path="settings/sandboxes" element={<Screen prefetch={prefetchSandboxes}><SandboxesPage /></Screen>} />
        {isAdmin && <Route path="settings/tokens" element={<Screen><TokensPage /></Screen>} />}
        {/* Not only for admins: a member who follows a link is told the API's answer. */}
        <Route path="settings/audit" element={<Screen><AuditPage /></Screen>} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
