import { useId, useState } from "react";
import { CopyField } from "../../ui/CopyField";
import { mcpSnippets, mcpUrl } from "./mcpSnippets";

interface McpConnectCardProps {
  agentId: string;
  agentName: string;
  /** The agent has a sandbox saved: without one its endpoint lists no tools. */
  bound: boolean;
  origin?: string;
}

/** The agent's MCP endpoint and how to connect each agent framework to it. */
export function McpConnectCard({ agentId, agentName, bound, origin = window.location.origin }: McpConnectCardProps) {
  const headingId = useId();
  const url = mcpUrl(origin, agentId);
  const snippets = mcpSnippets(url, agentName);
  const [chosen, setChosen] = useState(snippets[0]!.id);
  const snippet = snippets.find((s) => s.id === chosen) ?? snippets[0]!;
  return (
    <section className="editor__section" aria-labelledby={headingId}>
      <h2 id={headingId}>Connect over MCP</h2>
      <p className="muted">
        Any agent framework that speaks the Model Context Protocol can use this agent's sandbox tools at this URL, with an
        API token as a bearer token.{" "}
        {bound ? "Each MCP session works on one thread: name it with the Auxilia-Thread header." : "Save a sandbox to give it tools."}
      </p>
      <CopyField value={url} label="MCP URL" />
      <div className="mcp-connect__choices" role="radiogroup" aria-label="Client">
        {snippets.map((s) => (
          <label key={s.id} className="mcp-connect__choice">
            <input type="radio" name={`${headingId}-client`} value={s.id} checked={s.id === chosen} onChange={() => setChosen(s.id)} />
            {s.label}
          </label>
        ))}
      </div>
      <p className="muted">{snippet.hint}</p>
      <pre className="mcp-connect__snippet" tabIndex={0} aria-label={`${snippet.label} configuration`}>
        {snippet.code}
      </pre>
    </section>
  );
}
