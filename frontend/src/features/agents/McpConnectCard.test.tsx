import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { McpConnectCard } from "./McpConnectCard";
import { serverName } from "./mcpSnippets";

describe("Connect over MCP", () => {
  it("shows the agent's MCP URL and a configuration for each framework, with no token in them", async () => {
    const user = userEvent.setup();
    render(<McpConnectCard agentId="a1" agentName="Data analyst" bound origin="https://aux.example" />);
    expect(screen.getByRole("textbox", { name: "MCP URL" })).toHaveValue("https://aux.example/mcp/agents/a1");

    expect(screen.getByLabelText("Claude Code configuration").textContent).toBe(
      'claude mcp add --transport http auxilia-data-analyst https://aux.example/mcp/agents/a1 \\\n  --header "Authorization: Bearer $AUXILIA_TOKEN"',
    );
    await user.click(screen.getByRole("radio", { name: "Claude Desktop" }));
    const desktop = JSON.parse(screen.getByLabelText("Claude Desktop configuration").textContent!);
    expect(desktop.mcpServers["auxilia-data-analyst"].args).toEqual([
      "-y", "mcp-remote", "https://aux.example/mcp/agents/a1", "--header", "Authorization:${AUXILIA_AUTH}",
    ]);
    await user.click(screen.getByRole("radio", { name: "OpenAI Agents SDK" }));
    expect(screen.getByLabelText("OpenAI Agents SDK configuration").textContent).toContain(
      '"url": "https://aux.example/mcp/agents/a1"',
    );
    await user.click(screen.getByRole("radio", { name: "LangGraph" }));
    const langgraph = screen.getByLabelText("LangGraph configuration").textContent!;
    expect(langgraph).toContain('"transport": "streamable_http"');
    expect(langgraph).toContain('"Auxilia-Thread": "conversation-42"');
  });

  it("says an agent without a sandbox has no tools to give", () => {
    render(<McpConnectCard agentId="a1" agentName="Idle" bound={false} origin="https://aux.example" />);
    expect(screen.getByText(/Save a sandbox to give it tools\./)).toBeInTheDocument();
  });

  it("names the server after the agent, in the characters configurations take", () => {
    expect(serverName("Ünïcode & Friends!")).toBe("auxilia-n-code-friends");
    expect(serverName("***")).toBe("auxilia-agent");
  });
});
