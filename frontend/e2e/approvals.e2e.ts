import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminToken,
  apiCall,
  baseUrl,
  expectAccessible,
  expectNoHorizontalScroll,
  openBrowser,
  screenshot,
  signIn,
  uniqueName,
  type Browser,
} from "./browser";

interface Created {
  id: string;
}

async function agentNeeding(tools: Record<string, string>, approval?: { granted_by: string; with_call?: boolean }) {
  const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: uniqueName("Approval box"), provider: "local" });
  const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Careful") });
  await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id, tools, approval });
  return agent.id;
}

describe("Approval card", () => {
  let browser: Browser;
  const clients: Client[] = [];
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/runs");
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await browser?.close();
  });

  async function startRun(agentId: string, thread: string) {
    const { page } = browser;
    await page.goto(baseUrl() + "/runs");
    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(agentId);
    await starter.getByRole("textbox", { name: "New thread id" }).fill(thread);
    await starter.getByRole("button", { name: "Start run" }).click();
    const run = page.getByRole("region", { name: "Current run" });
    await run.getByText("active").first().waitFor({ timeout: 30_000 });
    return run;
  }

  it("approves and denies a command from the card, naming who decided", async () => {
    const { page } = browser;
    const agent = await agentNeeding({ execute: "needs_approval" });
    const run = await startRun(agent, "card-thread");

    const command = run.getByRole("textbox", { name: "Command" });
    await command.fill("echo approved-from-the-card");
    await command.press("Control+Enter");
    const card = page.getByRole("region", { name: "Approvals" });
    const waiting = card.getByRole("article", { name: "Run a command: waiting for approval" });
    await waiting.getByText("echo approved-from-the-card").waitFor({ timeout: 30_000 });
    expect(await card.textContent()).not.toContain("Auxilia-Approval");
    await screenshot(page, "20-approval-card");
    await expectAccessible(page, "approval card");
    await waiting.getByRole("button", { name: "Approve" }).click();
    await card.getByText(/Approved by .+ on .+\. The call runs when it is made again\./).waitFor();
    expect(await waiting.count()).toBe(0);

    // The person makes the call again: it goes ahead, once.
    await command.fill("echo approved-from-the-card");
    await command.press("Control+Enter");
    const output = run.getByRole("log", { name: "Command output" });
    await output.getByText("approved-from-the-card", { exact: true }).waitFor({ timeout: 30_000 });
    await card.getByText(/Approved by .+\. The call ran\./).waitFor({ timeout: 10_000 });

    await command.fill("echo denied-from-the-card");
    await command.press("Control+Enter");
    const denied = card.getByRole("article", { name: "Run a command: waiting for approval" });
    await denied.getByText("echo denied-from-the-card").waitFor({ timeout: 30_000 });
    await denied.getByRole("button", { name: "Deny" }).click();
    await card.getByText(/Denied by .+ on /).waitFor();
    await command.fill("echo denied-from-the-card");
    await command.press("Control+Enter");
    await output.getByText(/A person denied the call of execute/).waitFor({ timeout: 30_000 });
    expect(await output.getByText("denied-from-the-card", { exact: true }).count()).toBe(0);

    const audit = await apiCall<{ items: { action: string; outcome: string; detail: string }[] }>(
      "GET",
      "/api/v1/audit?action=tool.approve&page_size=20",
    );
    const details = audit.items.map((e) => `${e.outcome}: ${e.detail}`);
    expect(details.some((d) => d.startsWith('success: a person approved execute "echo approved-from-the-card"'))).toBe(true);
    expect(details.some((d) => d.startsWith('denied: a person denied execute "echo denied-from-the-card"'))).toBe(true);
  });

  it("shows an MCP client's waiting call; approved there, the model's repeat goes ahead", async () => {
    const { page } = browser;
    const agent = await agentNeeding({ write_file: "needs_approval" });
    const thread = "mcp-card-thread";
    const client = new Client({ name: "auxilia-e2e", version: "1.0.0" }, { capabilities: {} });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl()}/mcp/agents/${agent}`), {
        requestInit: { headers: { Authorization: `Bearer ${adminToken()}`, "Auxilia-Thread": thread } },
      }),
    );
    clients.push(client);
    const write = async () =>
      (await client.callTool({ name: "write_file", arguments: { path: "from-the-model.txt", content: "hello from MCP" } }, undefined, {
        timeout: 60_000,
      })) as CallToolResult;
    const refused = await write();
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("a person must approve the call in the Auxilia console");

    await startRun(agent, thread);
    const card = page.getByRole("region", { name: "Approvals" });
    const waiting = card.getByRole("article", { name: "Create a file: waiting for approval" });
    await waiting.getByText("through an MCP client").waitFor({ timeout: 30_000 });
    await waiting.getByText("hello from MCP").waitFor();
    await page.setViewportSize({ width: 360, height: 800 });
    await expectNoHorizontalScroll(page);
    await expectAccessible(page, "approval card at 360 px");
    await page.setViewportSize({ width: 1280, height: 860 });
    // By keyboard alone: focus the button and press Enter.
    await waiting.getByRole("button", { name: "Approve" }).focus();
    await page.keyboard.press("Enter");
    await card.getByText(/Approved by .+ on /).waitFor();

    const done = await write();
    expect(done.isError, JSON.stringify(done.content)).toBeFalsy();
    expect((done.structuredContent as { path: string }).path).toBe("/workspace/from-the-model.txt");
    await card.getByText(/The call ran\./).waitFor({ timeout: 10_000 });
  });

  it("keeps Approve from the token that made the call where someone else must approve it; another token approves", async () => {
    const { page } = browser;
    const agent = await agentNeeding({ execute: "needs_approval" }, { granted_by: "someone_else" });
    const run = await startRun(agent, "someone-else-thread");

    const command = run.getByRole("textbox", { name: "Command" });
    await command.fill("echo approved-by-someone-else");
    await command.press("Control+Enter");
    const output = run.getByRole("log", { name: "Command output" });
    await output.getByText(/from another token than the one that made the call/).waitFor({ timeout: 30_000 });
    expect(await run.getByRole("button", { name: "Approve and run" }).count()).toBe(0);

    const card = page.getByRole("region", { name: "Approvals" });
    const waiting = card.getByRole("article", { name: "Run a command: waiting for approval" });
    await waiting.getByText("Someone other than whoever made the call must approve it.").waitFor({ timeout: 30_000 });
    const approve = waiting.getByRole("button", { name: "Approve" });
    expect(await approve.isDisabled()).toBe(true);
    await waiting.getByText("You made this call: someone else must approve it.").waitFor();
    await screenshot(page, "21-approval-card-someone-else");
    await expectAccessible(page, "approval card, someone else approves");

    const other = await apiCall<{ token: string }>("POST", "/api/v1/tokens", { name: uniqueName("reviewer"), role: "member" });
    const runs = await apiCall<{ items: { id: string }[] }>("GET", `/api/v1/agents/${agent}/threads/someone-else-thread/runs`);
    const pending = await apiCall<{ items: { id: string }[] }>("GET", `/api/v1/runs/${runs.items[0]!.id}/approvals`);
    await apiCall("POST", `/api/v1/runs/${runs.items[0]!.id}/approvals/${pending.items[0]!.id}/decision`, { decision: "approve" }, other.token);
    await card.getByText(/Approved by reviewer .+ on .+\. The call runs when it is made again\./).waitFor({ timeout: 10_000 });

    await command.fill("echo approved-by-someone-else");
    await command.press("Control+Enter");
    await output.getByText("approved-by-someone-else", { exact: true }).waitFor({ timeout: 30_000 });
  });
});
