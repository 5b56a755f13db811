import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, baseUrl, expectAccessible, openBrowser, signIn, uniqueName, type Browser } from "./browser";

interface Created {
  id: string;
}

/** Where these scenarios' screenshots go, at 1280 and 360 px wide, to be checked by eye. */
const shotsDir = process.env.CONSOLE_SHOTS_DIR;

async function shots(page: Page, name: string) {
  if (!shotsDir) return;
  const size = page.viewportSize()!;
  await page.screenshot({ path: `${shotsDir}/${name}-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 360, height: 780 });
  await page.screenshot({ path: `${shotsDir}/${name}-360.png`, fullPage: true });
  await page.setViewportSize(size);
}

async function boundAgent(sandboxBody: Record<string, unknown>) {
  const sandbox = await apiCall<Created & { name: string }>("POST", "/api/v1/sandboxes", sandboxBody);
  const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Runner") });
  await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id });
  return { sandbox, agent };
}

describe("The console never shows a false state", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/runs");
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("says a run ended when its sandbox is deleted under it, and offers nothing that cannot work", async () => {
    const { page } = browser;
    const { sandbox, agent } = await boundAgent({ name: uniqueName("Doomed box"), provider: "local" });
    await page.goto(baseUrl() + `/runs?agent=${agent.id}`);
    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(agent.id);
    await starter.getByRole("button", { name: "Start run" }).click();
    const run = page.getByRole("region", { name: "Current run" });
    // A busy host takes a while to make a local instance.
    await run.getByText("active", { exact: true }).waitFor({ timeout: 90_000 });

    // The command is typed before the delete: the console may learn that
    // the run ended before it is sent (its reread of the run, or a poll of
    // the run's approvals or files, refused), and then offers it no more;
    // either way it says why the run ended.
    const command = run.getByRole("textbox", { name: "Command" });
    await command.fill("echo still here");
    await apiCall("DELETE", `/api/v1/sandboxes/${sandbox.id}?detach_agents=true`);
    if (await command.isEnabled()) await command.press("Control+Enter");

    const ended = run.getByRole("status", { name: "Run ended" });
    await ended.waitFor();
    // The refusal's own words come first; the run, read again, says why it ended.
    await expect
      .poll(() => ended.textContent(), { timeout: 15_000 })
      .toContain(`Sandbox '${sandbox.name}' was deleted, which ended this run`);
    await ended.getByRole("link", { name: "check its Tools" }).waitFor();
    await run.getByText("completed", { exact: true }).waitFor();
    expect(await run.getByText("active", { exact: true }).count()).toBe(0);
    expect(await run.getByText(`on ${sandbox.name}, deleted since`).count()).toBe(1);
    expect(await run.getByLabel("Thread's sandbox").count()).toBe(0);
    expect(await run.getByRole("button", { name: "Retry" }).count()).toBe(0);
    expect(await command.isDisabled()).toBe(true);
    await expectAccessible(page, "run ended with its sandbox");
    await shots(page, "run-ended-sandbox-deleted");
  }, 150_000);

  it("learns, without being asked, that its agent lost its sandbox, and says so", async () => {
    const { page } = browser;
    const { sandbox, agent } = await boundAgent({ name: uniqueName("Taken box"), provider: "local" });
    await page.goto(baseUrl() + `/runs?agent=${agent.id}`);
    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(agent.id);
    await starter.getByRole("button", { name: "Start run" }).click();
    const run = page.getByRole("region", { name: "Current run" });
    await run.getByText("active", { exact: true }).waitFor({ timeout: 90_000 });

    await apiCall("DELETE", `/api/v1/agents/${agent.id}/sandbox`);
    // No command is typed: the console's own reread of its active run finds it ended.
    const ended = run.getByRole("status", { name: "Run ended" });
    await ended.waitFor({ timeout: 30_000 });
    expect(await ended.textContent()).toContain(`no longer has sandbox '${sandbox.name}', which ended this run`);
    await ended.getByRole("link", { name: "check its Tools" }).waitFor();
    expect(await run.getByRole("textbox", { name: "Command" }).isDisabled()).toBe(true);
    await expectAccessible(page, "run ended by its agent's unbinding");
  }, 150_000);

  it("labels a start that failed its probe as failed, and keeps its notice on the thread's page", async () => {
    const { page } = browser;
    const { sandbox, agent } = await boundAgent({ name: uniqueName("Down box"), provider: "opensandbox", url: "127.0.0.1:1" });
    await page.goto(baseUrl() + "/runs");
    const starter = page.getByRole("form", { name: "Start a run" });
    await starter.getByRole("combobox", { name: "Agent" }).selectOption(agent.id);
    const threadId = await starter.getByRole("textbox", { name: "New thread id" }).inputValue();
    await starter.getByRole("button", { name: "Start run" }).click();
    const alert = starter.getByRole("alert");
    await alert.waitFor();
    const notice = (await alert.textContent())!;
    expect(notice).toMatch(new RegExp(`^Sandbox '${sandbox.name}' is not available`));
    const timer = starter.getByRole("timer");
    expect(await timer.textContent()).toMatch(/^Failed after \d+\.\d s$/);
    expect(await starter.getByRole("link", { name: "Open the sandbox" }).getAttribute("href")).toBe(`/sandboxes/${sandbox.id}`);
    await shots(page, "run-start-failed");

    await starter.getByRole("link", { name: "The thread keeps this notice" }).click();
    const refused = page.getByRole("list", { name: "Refused starts" });
    await refused.waitFor();
    const item = refused.getByRole("listitem");
    expect(await item.count()).toBe(1);
    expect(await item.textContent()).toContain(notice);
    // The time, to the second.
    expect(await item.locator("time").textContent()).toMatch(/\d{1,2}:\d{2}:\d{2}/);
    expect(await item.getByRole("link", { name: `Sandbox ${sandbox.name}` }).getAttribute("href")).toBe(`/sandboxes/${sandbox.id}`);
    expect(page.url()).toContain(`/threads/${threadId}`);
    await expectAccessible(page, "thread with a refused start");
    await shots(page, "thread-refused-starts");
  });

  it("says, before deleting a bound sandbox, that its live instances and open runs end", async () => {
    const { page } = browser;
    const { sandbox } = await boundAgent({ name: uniqueName("Bound box"), provider: "local" });
    await page.goto(baseUrl() + "/settings/sandboxes");
    const row = page.getByRole("listitem", { name: sandbox.name });
    await row.getByRole("button", { name: `Delete ${sandbox.name}` }).click();
    const dialog = page.getByRole("alertdialog", { name: "Sandbox in use" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("live instances are destroyed, with the files in them, and the runs open on it end");
    await shots(page, "delete-bound-sandbox");
    await dialog.getByRole("button", { name: "Cancel" }).click();
  });
});

describe("Nothing a person typed is lost", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/agents");
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("asks before leaving an agent whose added tool is not saved, and on reload", async () => {
    const { page } = browser;
    const sandboxName = uniqueName("Unsaved box");
    await apiCall("POST", "/api/v1/sandboxes", { name: sandboxName, provider: "local" });
    const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Forgetful") });
    await page.goto(baseUrl() + `/agents/${agent.id}`);
    await page.getByRole("button", { name: "Add tool" }).click();
    const dialog = page.getByRole("dialog", { name: "Add tool" });
    await dialog.getByRole("group", { name: "Sandboxes" }).getByRole("radio", { name: new RegExp(sandboxName) }).check();
    await dialog.getByRole("button", { name: "Add", exact: true }).click();
    await dialog.waitFor({ state: "hidden" });

    await page.getByText("Unsaved changes").waitFor();
    // Save stays in view without scrolling.
    const save = page.getByRole("button", { name: "Save changes" });
    const box = (await save.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(page.viewportSize()!.height);

    await page.getByRole("link", { name: "Agents", exact: true }).first().click();
    const ask = page.getByRole("alertdialog", { name: "Leave without saving?" });
    await ask.waitFor();
    await shots(page, "agent-leave-unsaved");
    await ask.getByRole("button", { name: "Cancel" }).click();
    await page.getByRole("region", { name: new RegExp(sandboxName) }).waitFor();
    expect(page.url()).toContain(`/agents/${agent.id}`);

    // A reload gets the browser's own question; dismissing it keeps the page.
    let asked = false;
    page.once("dialog", (d) => {
      asked = d.type() === "beforeunload";
      void d.dismiss();
    });
    await page.reload().catch(() => undefined);
    expect(asked).toBe(true);
    await page.getByText("Unsaved changes").waitFor();

    await save.click();
    await page.getByText("Saved.").waitFor();
    const saved = await apiCall<{ sandbox: { name: string } | null }>("GET", `/api/v1/agents/${agent.id}`);
    expect(saved.sandbox?.name).toBe(sandboxName);
    // Saved: leaving no longer asks.
    await page.getByRole("link", { name: "Agents", exact: true }).first().click();
    await page.waitForURL(/\/agents$/);
  });

  it("after a refused save, lists each bad field beside Save and brings the field into view", async () => {
    const { page } = browser;
    const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Colourful") });
    await page.setViewportSize({ width: 1280, height: 520 });
    await page.goto(baseUrl() + `/agents/${agent.id}`);
    await page.getByRole("textbox", { name: "Colour", exact: true }).fill("blue-ish");
    await page.getByRole("button", { name: "Save changes" }).click();
    const summary = page.getByRole("alert", { name: "1 field needs a change before saving:" });
    await summary.waitFor();
    const link = summary.getByRole("link", { name: /^Colour: / });
    await link.click();
    const colour = page.getByRole("textbox", { name: "Colour", exact: true });
    expect(await colour.evaluate((el) => el === document.activeElement)).toBe(true);
    // The field sits above the sticky footer, not under it.
    const field = (await colour.boundingBox())!;
    const footer = (await page.locator(".editor__actions").boundingBox())!;
    expect(field.y + field.height).toBeLessThanOrEqual(footer.y);
    await expectAccessible(page, "agent with a refused save");
    await shots(page, "agent-error-summary");
    await page.setViewportSize({ width: 1280, height: 860 });
  });
});
