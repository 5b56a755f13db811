import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
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

describe("Runs with an address, their progress and their threads", () => {
  let browser: Browser;
  let agentName: string;
  let sandboxName: string;
  let agentId: string;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/runs");
    sandboxName = uniqueName("Packaged box");
    // pip is in every new local instance already: installing it needs no index, and pip says so.
    const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", {
      name: sandboxName,
      provider: "local",
      config: { default_packages: ["pip"], network: { default: "allow" } },
    });
    agentName = uniqueName("Historian");
    agentId = (await apiCall<Created>("POST", "/api/v1/agents", { name: agentName })).id;
    await apiCall("PUT", `/api/v1/agents/${agentId}/sandbox`, { sandbox_id: sandbox.id });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows a start's steps and time, gives the run an address that a reload keeps, and names agent, sandbox and thread", async () => {
    const { page } = browser;
    await page.goto(baseUrl() + "/runs");
    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(agentId);
    const threadId = await starter.getByRole("textbox", { name: "New thread id" }).inputValue();
    await starter.getByRole("button", { name: "Start run" }).click();

    const progress = starter.getByRole("region", { name: "Start progress" });
    await progress.getByText("Creating the instance").waitFor({ timeout: 60_000 });
    await progress.getByText("Installing packages").waitFor({ timeout: 60_000 });
    await progress.getByLabel("Installer output").getByText(/Requirement already satisfied: pip/).waitFor({ timeout: 60_000 });
    const run = page.getByRole("region", { name: "Current run" });
    await run.getByText("active", { exact: true }).waitFor({ timeout: 60_000 });
    const steps = await progress.getByRole("listitem").allTextContents();
    expect(steps.map((s) => s.replace(/^[\d.]+ s\s*/, "").split(" ")[0])).toEqual(["Checking", "Creating", "Installing", "Ready"]);
    expect(await progress.getByRole("timer").textContent()).toMatch(/^Started in \d+\.\d s$/);
    await screenshot(page, "20-run-start-progress");
    await page.setViewportSize({ width: 360, height: 780 });
    await expectNoHorizontalScroll(page);
    await page.setViewportSize({ width: 1280, height: 860 });

    expect(page.url()).toMatch(/\/runs\/[0-9a-f-]{36}$/);
    const header = run.locator(".run__header");
    expect(await header.textContent()).toContain(agentName);
    expect(await header.textContent()).toContain(sandboxName);
    expect(await header.textContent()).toContain(threadId);

    const command = run.getByRole("textbox", { name: "Command" });
    await command.fill("echo before the reload > kept.txt");
    await command.press("Control+Enter");
    await run.getByRole("log", { name: "Command output" }).getByText(/^exit 0\b/).waitFor({ timeout: 30_000 });

    await page.reload();
    const again = page.getByRole("region", { name: "Current run" });
    await again.getByText("active", { exact: true }).waitFor();
    expect(await again.locator(".run__header").textContent()).toContain(agentName);
    const input = again.getByRole("textbox", { name: "Command" });
    await input.fill("cat kept.txt");
    await input.press("Control+Enter");
    await again.getByRole("log", { name: "Command output" }).getByText("before the reload").waitFor({ timeout: 30_000 });
    await expectAccessible(page, "run console after a reload");
  });

  it("takes the previous run off the screen when a start fails", async () => {
    const { page } = browser;
    expect(await page.getByRole("region", { name: "Current run" }).count()).toBe(1);
    const down = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: uniqueName("Down box"), provider: "opensandbox", url: "127.0.0.1:1" });
    const stranded = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Stranded") });
    await apiCall("PUT", `/api/v1/agents/${stranded.id}/sandbox`, { sandbox_id: down.id });
    await page.reload();

    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(stranded.id);
    await starter.getByRole("button", { name: "Start run" }).click();
    await starter.getByRole("alert").waitFor();
    // The start's navigation may render just after its refusal shows.
    await expect.poll(() => page.getByRole("region", { name: "Current run" }).count()).toBe(0);
    expect(await page.getByRole("textbox", { name: "Command" }).count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe("/runs");
    await screenshot(page, "20-run-failed-start");
  });

  it("lists an agent's threads and a thread's runs, resumes its active run and deletes it", async () => {
    const { page } = browser;
    const thread = "history-" + Math.random().toString(36).slice(2, 7);
    await apiCall("POST", `/api/v1/agents/${agentId}/threads/${thread}/runs`);
    const active = await apiCall<Created>("POST", `/api/v1/agents/${agentId}/threads/${thread}/runs`);

    await page.goto(`${baseUrl()}/agents/${agentId}/threads`);
    const threads = page.getByRole("list", { name: "Threads" });
    await threads.getByRole("link", { name: thread }).click();
    await page.getByRole("heading", { name: `Thread ${thread}` }).waitFor();
    const runs = page.getByRole("list", { name: "Runs" });
    await runs.getByRole("listitem").nth(1).waitFor();
    expect(await runs.getByRole("listitem").count()).toBe(2);
    expect(await runs.getByRole("listitem").first().textContent()).toContain("active");
    expect(await runs.getByRole("listitem").nth(1).textContent()).toContain("completed");
    await expectAccessible(page, "thread history");

    await page.getByRole("link", { name: "Resume the active run" }).click();
    await page.waitForURL(`**/runs/${active.id}`);
    await page.getByRole("region", { name: "Current run" }).getByText("active", { exact: true }).waitFor();

    await page.getByRole("region", { name: "Current run" }).getByRole("link", { name: thread }).click();
    await page.getByRole("heading", { name: `Thread ${thread}` }).waitFor();
    await page.setViewportSize({ width: 360, height: 780 });
    await expectNoHorizontalScroll(page);
    await page.getByRole("button", { name: "Delete thread" }).click();
    const dialog = page.getByRole("alertdialog");
    await dialog.getByRole("button", { name: "Delete thread" }).click();
    await page.waitForURL(`**/agents/${agentId}/threads`);
    await page.getByRole("list", { name: "Threads" }).waitFor();
    expect(await page.getByRole("link", { name: thread }).count()).toBe(0);
    await page.setViewportSize({ width: 1280, height: 860 });
  });
});
