import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, baseUrl, expectAccessible, openBrowser, screenshot, signIn, uniqueName, type Browser } from "./browser";

interface Created {
  id: string;
}
interface AgentView {
  id: string;
  name: string;
  sandbox: null | { sandbox_id: string; tools: Record<string, string>; approval: { granted_by: string; with_call: boolean } };
}

describe("Agents and sandbox bindings", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/agents");
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows an agent whose emoji has no glyph here by its first letter, never as a box", async () => {
    const { page } = browser;
    const name = uniqueName("zebra");
    const agent = await apiCall<Created>("POST", "/api/v1/agents", { name, emoji: "\u{10FFFC}" }); // in no font
    await page.goto(baseUrl() + "/agents");
    const row = page.getByRole("listitem").filter({ hasText: name });
    const avatar = row.locator(".agent-avatar");
    await avatar.waitFor();
    expect(await avatar.getAttribute("data-glyph")).toBe("initial");
    expect(await avatar.innerText()).toBe("Z");
    await page.goto(`${baseUrl()}/agents/${agent.id}`);
    expect(await page.locator(".agent-avatar").innerText()).toBe("Z");
  });

  it("creates an agent and binds a sandbox through Add tool", async () => {
    const { page } = browser;
    const sandboxName = uniqueName("Agent box");
    const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: sandboxName, provider: "local" });
    const agentName = uniqueName("Analyst");

    await page.goto(baseUrl() + "/agents");
    await page.getByRole("link", { name: "New agent" }).click();
    await page.getByRole("textbox", { name: "Name" }).fill(agentName);
    await page.getByRole("textbox", { name: "Emoji" }).fill("📊");
    await page.getByRole("textbox", { name: "Description" }).fill("Answers questions about our data");
    await page.getByRole("button", { name: "Create agent" }).click();
    await page.waitForURL(/\/agents\/[0-9a-f-]{36}$/);
    const agentId = page.url().split("/").pop()!;

    await page.getByRole("button", { name: "Add tool" }).click();
    const dialog = page.getByRole("dialog", { name: "Add tool" });
    const section = dialog.getByRole("group", { name: "Sandboxes" });
    await section.getByRole("radio", { name: new RegExp(sandboxName) }).check();
    await screenshot(page, "09-add-tool-dialog");
    await expectAccessible(page, "add tool dialog");
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });

    const card = page.getByRole("region", { name: new RegExp(sandboxName) });
    await card.waitFor();
    await card.getByText("Local", { exact: true }).waitFor();
    await card.getByRole("combobox", { name: "write_file" }).selectOption("needs_approval");
    await card.getByRole("combobox", { name: "Who may approve a call" }).selectOption("admin");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Saved.").waitFor();
    await screenshot(page, "09-agent-bound");
    await expectAccessible(page, "agent editor");

    const agent = await apiCall<AgentView>("GET", `/api/v1/agents/${agentId}`);
    expect(agent.sandbox?.sandbox_id).toBe(sandbox.id);
    expect(agent.sandbox?.tools).toMatchObject({ execute: "always_allow", write_file: "needs_approval" });
    expect(agent.sandbox?.approval).toEqual({ granted_by: "admin", with_call: true });

    // The list shows the binding's pill.
    await page.getByRole("link", { name: "Agents", exact: true }).first().click();
    const list = page.getByRole("list", { name: "Agents" });
    await list.getByText(sandboxName).waitFor();
    await expectAccessible(page, "agents list");
    await screenshot(page, "09-agents-list");
  });

  it("deletes a sandbox in use after listing its agents, and detaches them", async () => {
    const { page } = browser;
    const sandboxName = uniqueName("Doomed box");
    const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: sandboxName, provider: "local" });
    const agentName = uniqueName("Writer");
    const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: agentName, emoji: "✍️" });
    await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id });

    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: `Delete ${sandboxName}` }).click();
    const dialog = page.getByRole("alertdialog", { name: "Sandbox in use" });
    await dialog.getByRole("list", { name: "Agents using this sandbox" }).getByText(agentName).waitFor();
    await dialog.getByText("It loses code execution; its threads are kept.").waitFor();
    await dialog.getByText(/live instances are destroyed, with the files in them, and the runs open on it end/).waitFor();
    await screenshot(page, "10-delete-in-use");
    await expectAccessible(page, "delete in-use dialog");
    await dialog.getByRole("button", { name: "Detach from 1 agent & delete" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("listitem", { name: sandboxName }).waitFor({ state: "detached" });

    const after = await apiCall<AgentView>("GET", `/api/v1/agents/${agent.id}`);
    expect(after.sandbox).toBeNull();
  });

  it("deletes an unused sandbox after a confirm naming it", async () => {
    const { page } = browser;
    const sandboxName = uniqueName("Spare box");
    await apiCall<Created>("POST", "/api/v1/sandboxes", { name: sandboxName, provider: "local" });
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: `Delete ${sandboxName}` }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete sandbox" });
    await dialog.getByText(sandboxName).waitFor();
    await dialog.getByRole("button", { name: "Delete sandbox" }).click();
    await page.getByRole("listitem", { name: sandboxName }).waitFor({ state: "detached" });
  });
});
