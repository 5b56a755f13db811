import { lazy, Suspense, type ReactNode } from "react";
import { Navigate, Route, Routes } from "react-router-dom";
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

function Screen({ children }: { children: ReactNode }) {
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
        <Route path="settings/sandboxes" element={<Screen><SandboxesPage /></Screen>} />
        {isAdmin && <Route path="settings/tokens" element={<Screen><TokensPage /></Screen>} />}
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
