import { Link } from "react-router-dom";
import { useAgents } from "../../api/listAgents";
import { emojiPrefix } from "../../ui/emojiGlyph";

/** The run's agent, by name: the header says whose sandbox a command goes to. */
export function RunAgentName({ agentId, linkToThreads = false }: { agentId: string; linkToThreads?: boolean }) {
  const agents = useAgents();
  const agent = agents.data?.find((a) => a.id === agentId);
  const name = agent ? `${emojiPrefix(agent.emoji)}${agent.name}` : agentId;
  return (
    <span>
      Agent{" "}
      {linkToThreads ? (
        <Link to={`/agents/${agentId}/threads`} title="This agent's threads">
          <strong>{name}</strong>
        </Link>
      ) : (
        <strong>{name}</strong>
      )}
    </span>
  );
}
