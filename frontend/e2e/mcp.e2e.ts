import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { adminToken, apiCall, baseUrl, uniqueName } from "./browser";

// The agent's MCP endpoint, used by clients nobody here wrote: the official
// TypeScript SDK's client (Streamable HTTP) and the MCP Inspector's CLI.

interface Created {
  id: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const clients: Client[] = [];

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

async function agentOn(sandbox: Record<string, unknown>, tools?: Record<string, string>) {
  const box = await apiCall<Created>("POST", "/api/v1/sandboxes", sandbox);
  const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("MCP agent") });
  await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: box.id, ...(tools ? { tools } : {}) });
  return agent.id;
}

/** Connects the SDK's client; approve, when given, answers requests for approval. */
async function connect(agentId: string, thread: string, approve?: (message: string) => "accept" | "decline") {
  const client = new Client({ name: "auxilia-e2e", version: "1.0.0" }, { capabilities: approve ? { elicitation: {} } : {} });
  if (approve) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => ({ action: approve(request.params.message) }));
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl()}/mcp/agents/${agentId}`), {
    requestInit: { headers: { Authorization: `Bearer ${adminToken()}`, "Auxilia-Thread": thread } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>, onprogress?: (message: string) => void) {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    onprogress: onprogress ? (p) => onprogress(p.message ?? "") : undefined,
    timeout: 60_000,
  })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
  return { error: result.isError ? text : undefined, out: result.structuredContent as Record<string, unknown> | undefined };
}

describe("MCP endpoint", () => {
  it("serves the tools to the TypeScript SDK's client: commands, files, threads, approvals", async () => {
    const agent = await agentOn({ name: uniqueName("MCP box"), provider: "local" });
    const a = await connect(agent, "ts-thread-a");
    const { tools } = await a.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["edit_file", "execute", "glob", "grep", "ls", "read_file", "write_file"]);
    expect(tools.find((t) => t.name === "read_file")?.inputSchema.required).toEqual(["path"]);

    const streamed: string[] = [];
    const executed = await call(a, "execute", { command: "python3 -c 'print(6*7)'" }, (m) => streamed.push(m));
    expect(executed.error).toBeUndefined();
    expect(executed.out).toMatchObject({ exit_code: 0, output: "42\n" });
    expect(streamed.join("")).toBe("42\n");

    expect((await call(a, "write_file", { path: "a.txt", content: "thread a" })).out).toEqual({ path: "/workspace/a.txt" });
    expect((await call(a, "read_file", { path: "a.txt" })).out).toMatchObject({ content: "thread a" });

    const b = await connect(agent, "ts-thread-b");
    expect((await call(b, "glob", { pattern: "*.txt" })).out).toEqual({ paths: [], truncated: false });

    await apiCall("PUT", `/api/v1/agents/${agent}/sandbox`, {
      sandbox_id: (await apiCall<{ sandbox: { sandbox_id: string } }>("GET", `/api/v1/agents/${agent}`)).sandbox.sandbox_id,
      tools: { execute: "disabled", write_file: "needs_approval" },
    });
    expect((await call(a, "execute", { command: "id" })).error).toMatch(/^The tool execute is disabled for agent/);

    const asked: string[] = [];
    const approver = await connect(agent, "ts-thread-a", (message) => {
      asked.push(message);
      return message.includes("no.txt") ? "decline" : "accept";
    });
    expect((await approver.listTools()).tools.map((t) => t.name)).not.toContain("execute");
    expect((await call(approver, "write_file", { path: "yes.txt", content: "approved" })).out).toEqual({ path: "/workspace/yes.txt" });
    expect((await call(approver, "write_file", { path: "no.txt", content: "denied" })).error).toMatch(/did not approve the call of write_file/);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain('"path":"yes.txt"');
    expect((await call(approver, "glob", { pattern: "*.txt" })).out).toEqual({ paths: ["/workspace/a.txt", "/workspace/yes.txt"], truncated: false });

    const audit = await apiCall<{ items: { action: string; outcome: string; detail: string }[] }>("GET", "/api/v1/audit?page_size=200");
    const approvals = audit.items.filter((e) => e.action === "tool.approve" && (e.detail.includes("yes.txt") || e.detail.includes("no.txt")));
    expect(approvals.map((e) => e.outcome).sort()).toEqual(["denied", "success"]);
  });

  it("answers each call of an unavailable sandbox with a tool error naming it", async () => {
    const name = uniqueName("Down MCP box");
    const agent = await agentOn({ name, provider: "opensandbox", url: "127.0.0.1:1" });
    const client = await connect(agent, "ts-down");
    const { error } = await call(client, "ls", {});
    expect(error).toMatch(new RegExp(`^Sandbox '${name}' is not available: `));
  });

  it("refuses requests outside a session with the transport's statuses, and tells its version and answers' schemas", async () => {
    const agent = await agentOn({ name: uniqueName("Strict box"), provider: "local" });
    const endpoint = `${baseUrl()}/mcp/agents/${agent}`;
    const headers = {
      Authorization: `Bearer ${adminToken()}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2025-11-25",
    };
    const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect((await fetch(endpoint, { method: "POST", headers, body: list })).status).toBe(400);
    const unknown = await fetch(endpoint, { method: "POST", headers: { ...headers, "Mcp-Session-Id": "mcp-unknown" }, body: list });
    expect(unknown.status).toBe(404);

    const client = await connect(agent, "ts-strict");
    expect(client.getServerVersion()).toMatchObject({ name: "auxilia" });
    expect(client.getServerVersion()?.version).toMatch(/^(v\d+\.\d+\.\d+\S*|[0-9a-f]{12}(\+dirty)?|devel)$/);
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toMatchObject({ type: "object" });
    }
    expect(tools.find((t) => t.name === "execute")?.outputSchema?.required).toEqual(
      expect.arrayContaining(["exit_code", "output", "truncated", "duration_ms"]),
    );
    // The SDK's client checks each structured answer against its tool's outputSchema.
    expect((await call(client, "execute", { command: "echo hi" })).out).toMatchObject({ exit_code: 0, output: "hi\n" });
    expect((await call(client, "ls", {})).error).toBeUndefined();
  });

  it("lists the tools to the MCP Inspector, run as docs/mcp.md writes it", async () => {
    const agent = await agentOn({ name: uniqueName("Inspected box"), provider: "local" }, { grep: "disabled" });
    const docs = readFileSync(join(here, "..", "..", "docs", "mcp.md"), "utf8");
    const section = docs.slice(docs.indexOf("## The MCP Inspector"));
    const written = /^ {4}(npx [^\n]*(?:\n {6}[^\n]*)*)/m.exec(section)?.[1];
    expect(written, "the Inspector's command in docs/mcp.md").toBeDefined();
    const pinned = /^npx (@modelcontextprotocol\/inspector)@(\S+) /.exec(written ?? "");
    expect(pinned, "the command pins the Inspector's version").not.toBeNull();
    const [, name = "", version = ""] = pinned ?? [];
    const installed = join(here, "..", "node_modules", name);
    const pkg = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { version: string; bin: Record<string, string> };
    expect(pkg.version, "the version the docs pin is the one tested here").toBe(version);

    // As written, from a folder of the user's: npx would run the package's bin.
    const command = (written ?? "")
      .replace(`npx ${name}@${version}`, `node '${join(installed, Object.values(pkg.bin)[0] ?? "")}'`)
      .replace("https://aux.example.com/mcp/agents/<agent id>", `${baseUrl()}/mcp/agents/${agent}`);
    const result = spawnSync("bash", ["-c", command], {
      encoding: "utf8",
      timeout: 60_000,
      cwd: mkdtempSync(join(tmpdir(), "inspector-")),
      env: { ...process.env, AUXILIA_TOKEN: adminToken() },
    });
    expect(result.status, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout) as { tools: { name: string }[] };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(["edit_file", "execute", "glob", "ls", "read_file", "write_file"]);
  });
});
