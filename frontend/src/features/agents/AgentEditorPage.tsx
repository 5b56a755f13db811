import { useParams } from "react-router-dom";
import { isApiError } from "../../api/problem";
import { usePageTitle } from "../../ui/usePageTitle";
import { Button } from "../../ui/Button";
import { Loading } from "../../ui/Loading";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { AgentEditor } from "./AgentEditor";
import { useAgent } from "./api/getAgent";
import "./agents.css";

export default function AgentEditorPage() {
  const { agentId } = useParams();
  const agent = useAgent(agentId);
  usePageTitle(agentId ? (agent.data?.agent.name ?? "Agent") : "New agent");

  if (agentId && agent.isPending) return <Loading label="Loading agent…" />;
  // A failed refetch under an open editor leaves it be: only a first read that failed is shown here.
  if (agentId && agent.isError && !agent.data) {
    return (
      <div className="page">
        <h1>Agent</h1>
        <ProblemMessage
          error={isApiError(agent.error, "not_found") ? new Error("There is no such agent in this workspace.") : agent.error}
          action={<Button size="sm" onClick={() => agent.refetch()}>Retry</Button>}
        />
      </div>
    );
  }
  return <AgentEditor key={agentId ?? "new"} saved={agent.data} />;
}
