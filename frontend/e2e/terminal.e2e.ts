import type { Locator, Page } from "playwright-core";
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

/** A local sandbox and an agent bound to it with the given tool policies; the run console with it picked. */
async function agentOnLocal(page: Page, tools: Record<string, string> = {}) {
  const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: uniqueName("Shell box"), provider: "local" });
  const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Typist"), emoji: "⌨️" });
  await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id, tools });
  await page.goto(baseUrl() + "/runs");
  const starter = page.getByRole("form", { name: "Start a run" });
  await starter.getByRole("combobox", { name: "Agent" }).selectOption(agent.id);
  await starter.getByRole("button", { name: "Start run" }).click();
  const run = page.getByRole("region", { name: "Current run" });
  // A new local instance makes its Python environment first: slow on a busy machine.
  await run.getByText("active").waitFor({ timeout: 120_000 });
  return run;
}

/** The lines the terminal shows now, as a person reads them. */
async function screenLines(run: Locator): Promise<string[]> {
  return run.locator(".xterm-rows > div").evaluateAll((rows) => rows.map((r) => (r.textContent ?? "").replace(/\u00a0/g, " ").trimEnd()));
}

/** Waits until a line of the terminal matches. */
async function waitForLine(run: Locator, match: (line: string) => boolean, what: string, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const lines = await screenLines(run);
    if (lines.some(match)) return lines;
    if (Date.now() > deadline) throw new Error(`the terminal never showed ${what}; it showed:\n${lines.filter(Boolean).join("\n")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function type(page: Page, line: string) {
  await page.keyboard.type(line);
  await page.keyboard.press("Enter");
}

async function openShell(run: Locator) {
  await run.getByRole("tab", { name: "Terminal" }).click();
  await run.getByText("Shell open in the run's working directory.").waitFor({ timeout: 30_000 });
  // The shell takes the focus once open.
  expect(await run.getByRole("textbox", { name: "Shell input" }).evaluate((el) => el === document.activeElement)).toBe(true);
}

describe("Run console terminal", { timeout: 240_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/runs");
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("types into a real shell on the local provider: cd lasts, arithmetic, Ctrl-C, resize, exit", async () => {
    const { page } = browser;
    const run = await agentOnLocal(page);
    const files = page.getByRole("region", { name: "Files" });
    await files.getByRole("list", { name: "Folder contents" }).or(files.getByText("This folder is empty.")).first().waitFor();
    await openShell(run);

    // A command typed in the shell that makes a file: the file pane shows it without a refresh.
    await type(page, "echo made > made-in-shell.txt");
    await files.getByRole("button", { name: /made-in-shell\.txt/ }).waitFor({ timeout: 15_000 });

    await type(page, "cd /tmp && pwd");
    await waitForLine(run, (l) => l === "/tmp", "/tmp");
    await type(page, "echo $((6*7))");
    // The typed line shows $((6*7)); only the shell's answer is 42 alone.
    await waitForLine(run, (l) => l === "42", "42");

    await type(page, "sleep 100");
    await new Promise((r) => setTimeout(r, 700));
    const interrupted = Date.now();
    await page.keyboard.press("Control+c");
    await type(page, "echo status=$? in $(pwd)");
    await waitForLine(run, (l) => l === "status=130 in /tmp", "status=130 in /tmp");
    expect(Date.now() - interrupted).toBeLessThan(20_000);
    await screenshot(page, "13-run-terminal");
    await expectAccessible(page, "run console terminal");

    // The pane follows the page: at 360 px the shell is told its new, narrower size.
    await page.setViewportSize({ width: 360, height: 800 });
    await run.getByRole("textbox", { name: "Shell input" }).focus();
    let size: string[] = [];
    await expect
      .poll(
        async () => {
          await type(page, "stty size");
          const lines = await screenLines(run);
          size = [...lines].reverse().find((l) => /^\d+ \d+$/.test(l))?.split(" ") ?? [];
          return Number(size[1] ?? 80);
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toBeLessThan(50);
    await expectNoHorizontalScroll(page);
    await screenshot(page, "13-run-terminal-360");
    await expectAccessible(page, "run console terminal at 360 px");
    await page.setViewportSize({ width: 1280, height: 860 });

    await type(page, "exit 3");
    await run.getByText("The shell exited with code 3.").waitFor();
    await run.getByRole("button", { name: "Open a new shell" }).click();
    await run.getByText("Shell open in the run's working directory.").waitFor({ timeout: 30_000 });
    await type(page, "echo again-$((1+1))");
    await waitForLine(run, (l) => l === "again-2", "again-2");
    await type(page, "exit");
    await run.getByText("The shell exited with code 0.").waitFor();

    const audit = await apiCall<{ items: { action: string }[] }>("GET", "/api/v1/audit?page_size=50");
    expect(audit.items.filter((e) => e.action === "terminal.opened").length).toBeGreaterThanOrEqual(2);
  });

  it("opens the terminal only after a person approves it, where the execute tool needs approval", async () => {
    const { page } = browser;
    const run = await agentOnLocal(page, { execute: "needs_approval" });
    await run.getByRole("tab", { name: "Terminal" }).click();
    const approval = run.getByRole("region", { name: "Approve the terminal" });
    await approval.waitFor({ timeout: 30_000 });
    await expectAccessible(page, "run console terminal approval");
    await approval.getByRole("button", { name: "Approve and open terminal" }).click();
    await run.getByText("Shell open in the run's working directory.").waitFor({ timeout: 30_000 });
    await type(page, "echo approved-$((20+22))");
    await waitForLine(run, (l) => l === "approved-42", "approved-42");
    await type(page, "exit");
    await run.getByText("The shell exited with code 0.").waitFor();
  });
});
