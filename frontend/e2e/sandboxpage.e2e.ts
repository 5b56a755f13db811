import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { apiCall, baseUrl, expectAccessible, expectNoHorizontalScroll, openBrowser, signIn, uniqueName, type Browser } from "./browser";

interface Created {
  id: string;
}

// Screenshots of the new page, at the widths admins use, are looked at by eye.
const shots = process.env.AUXILIA_SHOTS_DIR;
async function shot(page: Page, name: string) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
}

/** A local sandbox with an agent bound to it and one run started on thread conv-1. */
async function sandboxWithARun(name: string) {
  const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name, provider: "local", description: "Bubblewrap on this host" });
  const agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Analyst"), emoji: "📊" });
  await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id });
  await apiCall("POST", `/api/v1/agents/${agent.id}/threads/conv-1/runs`);
  return { sandbox, agent };
}

describe("A sandbox's own page", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("is linked from its row and shows settings, agents, live instances, probe chart and audit entries", async () => {
    const { page } = browser;
    const name = uniqueName("Page box");
    const { sandbox } = await sandboxWithARun(name);
    await apiCall("POST", `/api/v1/sandboxes/${sandbox.id}/probe`);
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("listitem", { name }).getByRole("link", { name, exact: true }).click();
    await page.waitForURL(`**/sandboxes/${sandbox.id}`);
    await page.getByRole("heading", { level: 1, name }).waitFor();

    const settings = page.getByRole("region", { name: "Settings" });
    await settings.getByText("Provider").waitFor();
    await settings.getByText("memory_mb").waitFor();
    await page.getByRole("region", { name: "Agents" }).getByRole("link", { name: /Analyst/ }).waitFor();

    const chart = page.getByRole("region", { name: "Probe history" });
    await chart.getByText("latency (ms)").waitFor();
    await chart.getByRole("img", { name: /probes? from .* answered/ }).waitFor();

    const instances = page.getByRole("region", { name: "Live instances" });
    const row = instances.getByRole("row", { name: /Instance of .*conv-1/ });
    await row.getByText("live").waitFor();
    await row.getByText("just now").first().waitFor();
    await expectAccessible(page, "sandbox page");
    await shot(page, "sandbox-page-1280");

    await row.getByRole("button", { name: /Pause instance/ }).click();
    await row.getByText("paused").waitFor();
    await row.getByRole("button", { name: /Resume instance/ }).click();
    await row.getByText("live").waitFor();

    // Destroying loses the instance's files: it is confirmed first, and Cancel keeps it.
    await row.getByRole("button", { name: /Destroy instance/ }).click();
    const confirm = page.getByRole("alertdialog", { name: "Destroy instance" });
    await confirm.getByText(/loses them/).waitFor();
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await row.waitFor();
    await row.getByRole("button", { name: /Destroy instance/ }).click();
    await confirm.getByRole("button", { name: "Destroy instance" }).click();
    await confirm.waitFor({ state: "hidden" });
    await instances.getByText("No live instances").waitFor();

    const audit = page.getByRole("region", { name: "Audit entries" });
    for (const action of ["instance.pause", "instance.resume", "instance.destroy"]) {
      await audit.getByText(action, { exact: true }).waitFor();
    }
    await audit.getByText(/destroyed instance .* of sandbox/).waitFor();
  });

  it("fits 360 px without sideways scrolling", async () => {
    const narrow = await openBrowser({ viewport: { width: 360, height: 780 } });
    try {
      const name = uniqueName("Narrow box");
      const { sandbox } = await sandboxWithARun(name);
      await apiCall("POST", `/api/v1/sandboxes/${sandbox.id}/probe`);
      await signIn(narrow.page, undefined, `/sandboxes/${sandbox.id}`);
      await narrow.page.getByRole("heading", { level: 1, name }).waitFor();
      await narrow.page.getByRole("row", { name: /Instance of .*conv-1/ }).waitFor();
      await expectNoHorizontalScroll(narrow.page);
      await shot(narrow.page, "sandbox-page-360");
    } finally {
      await narrow.close();
    }
  });

  it("Save & test keeps the dialog open with the reason when the saved sandbox does not answer", async () => {
    const { page } = browser;
    const name = uniqueName("Unreachable");
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: "Add sandbox" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.getByRole("radio", { name: /OpenSandbox/ }).check();
    await dialog.getByRole("textbox", { name: "Name" }).fill(name);
    // Nothing listens on port 9 of loopback: the probe fails for the network.
    await dialog.getByRole("textbox", { name: "Domain" }).fill("127.0.0.1:9");
    await dialog.getByRole("button", { name: "Add sandbox" }).click();

    const saved = page.getByRole("dialog", { name: "Sandbox saved" });
    const alert = saved.getByRole("alert");
    await alert.getByText(/but the connection test failed/).waitFor();
    await alert.getByText("Network:").waitFor();
    await alert.getByText(/What to check: Check that the URL is right/).waitFor();
    await expectAccessible(page, "save and test failure");
    await shot(page, "save-and-test-failed-1280");

    // It was saved once: Edit settings edits it, it does not add a second one.
    await saved.getByRole("button", { name: "Edit settings" }).click();
    const edit = page.getByRole("dialog", { name: "Edit sandbox" });
    await expect.poll(() => edit.getByRole("textbox", { name: "Name" }).inputValue()).toBe(name);
    await edit.getByRole("button", { name: "Cancel" }).click();
    const list = await apiCall<{ items: Created[] }>("GET", `/api/v1/sandboxes?name=${encodeURIComponent(name)}`);
    expect(list.items).toHaveLength(1);
  });

  it("says near Test connection why nothing was tested when the form is refused", async () => {
    const { page } = browser;
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: "Add sandbox" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.getByRole("radio", { name: /OpenSandbox/ }).check();
    await dialog.getByRole("textbox", { name: "Name" }).fill(uniqueName("Metadata"));
    // A cloud metadata address is always refused.
    await dialog.getByRole("textbox", { name: "Domain" }).fill("169.254.169.254");
    await dialog.getByRole("button", { name: "Test connection" }).click();
    await dialog.locator(".test-connection").getByText(/Not tested: 1 field to fix first \(url\)/).waitFor();

    // Selects show words, and send the values the API takes (Keep files is in the Advanced fold).
    await dialog.getByText("Advanced settings").click();
    const keepFiles = dialog.getByRole("combobox", { name: "Keep files" });
    expect(await keepFiles.locator("option").allTextContents()).toEqual(["Until the instance expires", "Always"]);
    await keepFiles.selectOption({ label: "Always" });
    expect(await keepFiles.inputValue()).toBe("always");
    await dialog.getByRole("button", { name: "Cancel" }).click();
  });
});

describe("The Runs page", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("lists recent runs filtered by agent and state, and keeps the starter's agent in step with the run shown", async () => {
    const { page } = browser;
    const { agent } = await sandboxWithARun(uniqueName("Runs box"));
    const other = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Other") });
    const run = await apiCall<Created>("POST", `/api/v1/agents/${agent.id}/threads/conv-2/runs`);

    // The starter first picks an agent of its own; the run shown is another's.
    await page.goto(baseUrl() + "/runs");
    const starter = page.getByRole("form", { name: "Start a run" });
    const agentSelect = starter.getByRole("combobox", { name: "Agent" });
    await agentSelect.selectOption(other.id);
    await page.goto(baseUrl() + `/runs/${run.id}`);
    await page.getByRole("region", { name: "Current run" }).waitFor();
    await expect.poll(() => agentSelect.inputValue()).toBe(agent.id);

    const recent = page.getByRole("region", { name: "Recent runs" });
    const filters = recent.getByRole("group", { name: "Filter runs" });
    await filters.getByRole("combobox", { name: "Agent" }).selectOption(agent.id);
    const list = recent.getByRole("list", { name: "Recent runs" });
    await list.getByRole("link", { name: /conv-2/ }).waitFor();
    await list.getByRole("link", { name: /conv-1/ }).waitFor();
    await filters.getByRole("combobox", { name: "State" }).selectOption("completed");
    await recent.getByText("No runs match.").waitFor();
    await filters.getByRole("combobox", { name: "State" }).selectOption("active");
    await list.getByRole("link", { name: /conv-2/ }).waitFor();
    await filters.getByRole("combobox", { name: "Agent" }).selectOption(other.id);
    await recent.getByText("No runs match.").waitFor();
    await expectAccessible(page, "runs page");
    await shot(page, "runs-page-1280");
  });

  it("lists the workspace's live instances across sandboxes, filtered, with their actions; the Sandboxes list counts them", async () => {
    const { page } = browser;
    const boxName = uniqueName("Counted box");
    const { sandbox, agent } = await sandboxWithARun(boxName);
    await apiCall("POST", `/api/v1/agents/${agent.id}/threads/conv-2/runs`);
    const otherName = uniqueName("Other box");
    await sandboxWithARun(otherName);

    await page.goto(baseUrl() + "/runs");
    const live = page.getByRole("region", { name: "Live instances" });
    const filters = live.getByRole("group", { name: "Filter instances" });
    await filters.getByRole("combobox", { name: "Sandbox" }).selectOption(sandbox.id);
    const rows = live.getByRole("row", { name: /^Instance of / });
    await expect.poll(() => rows.count()).toBe(2);
    for (const thread of ["conv-1", "conv-2"]) {
      const row = live.getByRole("row", { name: new RegExp(`Instance of .* · ${thread}$`) });
      expect(await row.getByRole("link", { name: boxName }).getAttribute("href")).toBe(`/sandboxes/${sandbox.id}`);
    }
    expect(await live.getByRole("link", { name: otherName }).count()).toBe(0);
    await filters.getByRole("combobox", { name: "State" }).selectOption("paused");
    await live.getByText("No live instances match.").waitFor();
    await filters.getByRole("combobox", { name: "State" }).selectOption("live");
    await expect.poll(() => rows.count()).toBe(2);
    // The actions of the sandbox's page, here too: destroying one is confirmed, and the list follows.
    await live.getByRole("row", { name: /conv-2$/ }).getByRole("button", { name: /Destroy instance/ }).click();
    await page.getByRole("alertdialog", { name: "Destroy instance" }).getByRole("button", { name: "Destroy instance" }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await expectAccessible(page, "runs page with live instances");
    await shot(page, "runs-live-instances-1280");
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: 360, height: 780 });
    await expectNoHorizontalScroll(page);
    await shot(page, "runs-live-instances-360");
    await page.setViewportSize(size);

    await page.goto(baseUrl() + "/settings/sandboxes");
    const count = page.getByRole("listitem", { name: boxName }).getByRole("link", { name: `1 live instance of ${boxName}` });
    await count.waitFor();
    expect(await count.getAttribute("href")).toBe(`/sandboxes/${sandbox.id}`);
  });
});
