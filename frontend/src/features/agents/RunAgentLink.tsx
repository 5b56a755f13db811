import { Play } from "lucide-react";
import { Link } from "react-router-dom";

/** Opens the run console with this agent picked. */
export function RunAgentLink({ agentId }: { agentId: string }) {
  return (
    <Link to={`/runs?agent=${encodeURIComponent(agentId)}`} className="btn btn--secondary btn--md">
      <Play size={14} aria-hidden="true" /> Run this agent
    </Link>
  );
}
