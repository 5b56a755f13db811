import { Plus } from "lucide-react";
import { Link } from "react-router-dom";
import { usePageTitle } from "../../ui/usePageTitle";
import { Button } from "../../ui/Button";
import { EmptyState } from "../../ui/EmptyState";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useProviders } from "../../api/listProviders";
import { ProviderIcon } from "../../ui/ProviderIcon";
import { AgentAvatar } from "./AgentAvatar";
import { useAgents } from "../../api/listAgents";
import "./agents.css";

export default function AgentsPage() {
  usePageTitle("Agents");
  const agents = useAgents();
  const providers = useProviders();
  const providerTitle = (name: string) => providers.data?.find((p) => p.name === name)?.title ?? name;

  const newAgent = (
    <Link to="/agents/new" className="btn btn--primary btn--md">
      <Plus size={14} aria-hidden="true" /> New agent
    </Link>
  );

  let content;
  if (agents.isPending) content = <Loading label="Loading agents…" />;
  else if (agents.isError)
    content = <ProblemMessage error={agents.error} action={<Button size="sm" onClick={() => agents.refetch()}>Retry</Button>} />;
  else if (agents.data.length === 0)
    content = <EmptyState action={newAgent}>No agents yet. Create one, then give it a sandbox as a tool.</EmptyState>;
  else
    content = (
      <ul className="list" aria-label="Agents">
        {agents.data.map((agent) => (
          <li key={agent.id} className="list-row agent-row">
            <AgentAvatar emoji={agent.emoji} name={agent.name} color={agent.color} />
            <div className="list-row__main">
              <Link to={`/agents/${agent.id}`} className="list-row__title agent-row__link">
                <span className="truncate">{agent.name}</span>
              </Link>
              {agent.description && <p className="muted truncate">{agent.description}</p>}
            </div>
            {agent.sandbox ? (
              <span className="agent-row__sandbox">
                <ProviderIcon provider={agent.sandbox.provider} size={14} />
                <Pill tone="accent" title={`${providerTitle(agent.sandbox.provider)} sandbox`}>
                  {agent.sandbox.name}
                </Pill>
              </span>
            ) : (
              <span className="muted agent-row__sandbox">No sandbox</span>
            )}
          </li>
        ))}
      </ul>
    );

  return (
    <div className="page">
      <header className="page-header">
        <h1>Agents</h1>
        <span className="spacer" />
        {agents.data && agents.data.length > 0 && newAgent}
        <p className="page-header__lead">Agents run on conversation threads; one with a sandbox can execute code.</p>
      </header>
      {content}
    </div>
  );
}
