import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, baseUrl, expectAccessible, openBrowser, screenshot, signIn, uniqueName, type Browser } from "./browser";

interface Created {
  id: string;
}

describe("Run console", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/runs");
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("starts a run on a local sandbox, runs a command and shows its output and files", async () => {
    const { page } = browser;
    const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: uniqueName("Console box"), provider: "local" });
    const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Runner"), emoji: "🏃" });
    await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id });

    await page.goto(baseUrl() + "/runs");
    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(agent.id);
    await expectAccessible(page, "run console");
    await starter.getByRole("button", { name: "Start run" }).click();

    const run = page.getByRole("region", { name: "Current run" });
    await run.getByText("active").waitFor({ timeout: 30_000 });

    const command = run.getByRole("textbox", { name: "Command" });
    await command.fill("echo hello from the \"sand\"box && echo oops >&2 && printf x > made.txt");
    await command.press("Control+Enter");
    const output = run.getByRole("log", { name: "Command output" });
    await output.getByText("hello from the sandbox").waitFor({ timeout: 30_000 });
    await output.getByText(/^exit 0\b/).waitFor();
    const stderr = output.locator(".terminal__stderr");
    expect(await stderr.first().textContent()).toContain("oops");

    // History: the arrow key brings the command back.
    await command.press("ArrowUp");
    expect(await command.inputValue()).toContain('echo hello from the "sand"box');
    await command.fill("exit 3");
    await command.press("Control+Enter");
    // The exit line, not the command line "$ exit 3".
    await output.getByText(/^exit 3\b/).waitFor({ timeout: 30_000 });

    const files = run.getByRole("region", { name: "Files" });
    await files.getByRole("button", { name: /made\.txt/ }).click();
    await files.getByLabel("Contents of made.txt").getByText("x").waitFor();

    // Upload a file into the working directory, then open it.
    await files.getByLabel("File to upload").setInputFiles({
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("uploaded through the console\n"),
    });
    await files.getByText("Uploaded notes.txt.").waitFor();
    await files.getByRole("button", { name: /notes\.txt/ }).click();
    await files.getByLabel("Contents of notes.txt").getByText("uploaded through the console").waitFor();
    await screenshot(page, "12-run-console");
    await expectAccessible(page, "run console with output");
  });

  it("refuses a run whose sandbox fails its probe, with the server's one line", async () => {
    const { page } = browser;
    const sandboxName = uniqueName("Down box");
    const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", {
      name: sandboxName,
      provider: "opensandbox",
      url: "127.0.0.1:1",
    });
    const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Stranded") });
    await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id });

    await page.goto(baseUrl() + "/runs");
    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(agent.id);
    await starter.getByRole("button", { name: "Start run" }).click();
    const alert = starter.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(new RegExp(`^Sandbox '${sandboxName}' is not available: .*connection refused`));
    expect(await page.getByRole("region", { name: "Current run" }).count()).toBe(0);
    await screenshot(page, "12-run-sandbox-unavailable");
  });

  it("asks a person to approve the tools the binding gates, and the server audits each approval", async () => {
    const { page } = browser;
    const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: uniqueName("Gated box"), provider: "local" });
    const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Careful") });
    await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, {
      sandbox_id: sandbox.id,
      tools: { execute: "needs_approval", ls: "needs_approval", write_file: "needs_approval" },
    });

    await page.goto(baseUrl() + "/runs");
    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(agent.id);
    await starter.getByRole("button", { name: "Start run" }).click();
    const run = page.getByRole("region", { name: "Current run" });
    await run.getByText("active").waitFor({ timeout: 30_000 });

    const files = run.getByRole("region", { name: "Files" });
    await files.getByText(/The tool ls needs a person's approval/).waitFor();
    await screenshot(page, "12-run-console-approval");
    await expectAccessible(page, "run console asking for approval");
    await files.getByRole("button", { name: "Approve and list" }).click();
    // A new local instance holds only its own Python environment.
    await files.getByRole("button", { name: /\.venv \(folder\)/ }).waitFor();

    await files.getByLabel("File to upload").setInputFiles({ name: "plan.txt", mimeType: "text/plain", buffer: Buffer.from("step one\n") });
    await files.getByRole("button", { name: "Approve and upload" }).click();
    await files.getByText("Uploaded plan.txt.").waitFor();
    // Listing again needs approval again: each approval is for one call.
    await files.getByRole("button", { name: "Approve and list" }).click();
    await files.getByRole("button", { name: /plan\.txt/ }).waitFor();

    const command = run.getByRole("textbox", { name: "Command" });
    await command.fill("cat plan.txt");
    await command.press("Control+Enter");
    await run.getByRole("button", { name: "Approve and run" }).click();
    const output = run.getByRole("log", { name: "Command output" });
    await output.getByText("step one").waitFor({ timeout: 30_000 });

    const audit = await apiCall<{ items: { action: string; detail: string }[] }>("GET", "/api/v1/audit?page_size=50");
    const approvals = audit.items.filter((e) => e.action === "tool.approve").map((e) => e.detail);
    expect(approvals.filter((d) => d.startsWith("a person approved ls"))).toHaveLength(2);
    expect(approvals.some((d) => d.startsWith("a person approved write_file"))).toBe(true);
    expect(approvals.some((d) => d.startsWith("a person approved execute"))).toBe(true);
  });
});
