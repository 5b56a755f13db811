/**
 * How to connect an agent framework to an agent's MCP endpoint: the
 * ready-made configurations the agent page shows. The token is never put in
 * them: each reads it from the AUXILIA_TOKEN environment variable.
 */
export interface McpClientSnippet {
  id: string;
  label: string;
  /** What the snippet is, and where it goes. */
  hint: string;
  code: string;
}

/** The agent's MCP endpoint on this server. */
export function mcpUrl(origin: string, agentId: string) {
  return `${origin}/mcp/agents/${agentId}`;
}

/** A name for the server in a client's configuration: the agent's name, lower case, dashed. */
export function serverName(agentName: string) {
  const slug = agentName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `auxilia-${slug || "agent"}`;
}

export function mcpSnippets(url: string, agentName: string): McpClientSnippet[] {
  const name = serverName(agentName);
  return [
    {
      id: "claude-code",
      label: "Claude Code",
      hint: "Run in a shell where AUXILIA_TOKEN holds an API token.",
      code: `claude mcp add --transport http ${name} ${url} \\\n  --header "Authorization: Bearer $AUXILIA_TOKEN"`,
    },
    {
      id: "claude-desktop",
      label: "Claude Desktop",
      hint: "Add to claude_desktop_config.json (mcp-remote bridges Claude Desktop to a URL with a header).",
      code: JSON.stringify(
        {
          mcpServers: {
            [name]: {
              command: "npx",
              args: ["-y", "mcp-remote", url, "--header", "Authorization:${AUXILIA_AUTH}"],
              env: { AUXILIA_AUTH: "Bearer <your Auxilia API token>" },
            },
          },
        },
        null,
        2,
      ),
    },
    {
      id: "openai-agents",
      label: "OpenAI Agents SDK",
      hint: "Python. Auxilia-Thread keeps one sandbox folder per conversation.",
      code: `import os
from agents import Agent, Runner
from agents.mcp import MCPServerStreamableHttp

async with MCPServerStreamableHttp(
    name="${name}",
    params={
        "url": "${url}",
        "headers": {
            "Authorization": f"Bearer {os.environ['AUXILIA_TOKEN']}",
            "Auxilia-Thread": "conversation-42",
        },
    },
) as sandbox:
    agent = Agent(name="${agentName.replace(/"/g, '\\"')}", mcp_servers=[sandbox])
    result = await Runner.run(agent, "Compute 6*7 with Python.")`,
    },
    {
      id: "langgraph",
      label: "LangGraph",
      hint: "Python, langchain-mcp-adapters. Name the thread: the adapters open a session per tool call.",
      code: `import os
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.prebuilt import create_react_agent

client = MultiServerMCPClient({
    "${name}": {
        "transport": "streamable_http",
        "url": "${url}",
        "headers": {
            "Authorization": f"Bearer {os.environ['AUXILIA_TOKEN']}",
            "Auxilia-Thread": "conversation-42",
        },
    },
})
agent = create_react_agent("anthropic:claude-sonnet-4-5", await client.get_tools())`,
    },
  ];
}
