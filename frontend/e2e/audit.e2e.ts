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

interface CreatedToken {
  id: string;
  token: string;
}

/** A request made with a token of the scenario's own, so its entries can be told apart. */
async function callAs(token: string, method: string, path: string, body?: unknown) {
  return fetch(baseUrl() + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
}

describe("Settings → Audit log", () => {
  let browser: Browser;
  let actorName: string;
  let actor: CreatedToken;
  const agentIds: string[] = [];

  beforeAll(async () => {
    actorName = uniqueName("auditor");
    actor = await apiCall<CreatedToken>("POST", "/api/v1/tokens", { name: actorName, role: "admin" });
    // 27 changes and one refusal: two pages of 25 under the actor's filter.
    for (let i = 0; i < 27; i++) {
      const res = await callAs(actor.token, "POST", "/api/v1/agents", { name: uniqueName(`audited ${i}`) });
      agentIds.push(((await res.json()) as { id: string }).id);
    }
    expect((await callAs(actor.token, "POST", "/api/v1/agents", { name: "" })).status).toBe(422);
    expect((await callAs(actor.token, "DELETE", `/api/v1/agents/${agentIds[26]}`)).status).toBe(204);
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/settings/audit");
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("filters by who and outcome, keeps the filters in the URL, and pages with the cursor", async () => {
    const { page } = browser;
    await page.getByRole("list", { name: "Audit entries" }).waitFor();
    await expectAccessible(page, "audit log");

    const form = page.getByRole("form", { name: "Audit filters" });
    await form.getByRole("combobox", { name: "Who" }).selectOption({ label: actorName });
    await form.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/actor=/);
    const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(25);
    await expect.poll(() => entries.first().innerText(), { timeout: 15_000 }).toContain("agent.delete");
    await page.getByRole("button", { name: "Show older entries" }).click();
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(29);
    await page.getByText("The oldest entry is shown.").waitFor();

    // The refusal, by outcome; its detail names the field, and the URL holds both filters.
    await form.getByRole("combobox", { name: "Outcome" }).selectOption("invalid");
    await form.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(1);
    expect(new URL(page.url()).searchParams.get("outcome")).toBe("invalid");
    expect(new URL(page.url()).searchParams.get("actor")).toBe(actor.id);
    await page.reload();
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(1);
    expect(await form.getByRole("combobox", { name: "Outcome" }).inputValue()).toBe("invalid");
    await entries.first().getByText("agent.create").click();
    await entries.first().getByRole("paragraph").getByText(/Invalid: name\./).waitFor();
    await expectAccessible(page, "audit entry open");
  });

  it("links an entry to its resource while it exists, and says when it is gone", async () => {
    const { page } = browser;
    await page.goto(`${baseUrl()}/settings/audit?actor=${actor.id}&resource_id=${agentIds[0]}`);
    const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(1);
    await entries.first().getByText("agent.create").click();
    await entries.first().getByRole("link", { name: "Open the agent" }).click();
    await page.waitForURL(new RegExp(`/agents/${agentIds[0]}$`));

    await page.goto(`${baseUrl()}/settings/audit?action=agent.delete&resource_id=${agentIds[26]}`);
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(1);
    await entries.first().locator("summary").press("Enter"); // by keyboard: a summary opens on Enter
    await entries.first().getByText("This agent no longer exists.").waitFor();
    await screenshot(page, "20-audit-entry-gone");
  });

  it("says what changed and when, to the second, without opening an entry", async () => {
    const { page } = browser;
    const renamed = uniqueName("renamed");
    expect((await callAs(actor.token, "PATCH", `/api/v1/agents/${agentIds[1]}`, { name: renamed })).status).toBe(200);
    await page.goto(`${baseUrl()}/settings/audit?action=agent.update&resource_id=${agentIds[1]}`);
    const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
    await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(1);
    const summary = entries.first().locator("summary");
    expect(await entries.first().locator("details").getAttribute("open")).toBeNull();
    await summary.getByText(`changed agent "${renamed}": name`).waitFor();
    expect(await summary.locator("time").innerText()).toMatch(/\d:\d\d:\d\d/);
  });

  it("shows a time range with nothing in it as empty, and names a bad filter from the URL", async () => {
    const { page } = browser;
    await page.goto(`${baseUrl()}/settings/audit?since=2999-01-01T00:00:00.000Z`);
    await page.getByText("No entries match these filters.").waitFor();
    await page.goto(`${baseUrl()}/settings/audit?outcome=maybe`);
    await page.getByText(/must be one of success, denied/).waitFor();
    expect(await page.getByRole("combobox", { name: "Outcome" }).getAttribute("aria-invalid")).toBe("true");
  });

  it("works at 360 px", async () => {
    const narrow = await openBrowser({ viewport: { width: 360, height: 740 }, colorScheme: "dark" });
    try {
      await signIn(narrow.page, undefined, `/settings/audit?actor=${actor.id}`);
      const entries = narrow.page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
      await expect.poll(() => entries.count(), { timeout: 15_000 }).toBe(25);
      // The navigation folds behind Menu, and closes again on the page it leads to.
      const menu = narrow.page.getByRole("button", { name: "Menu" });
      expect(await menu.getAttribute("aria-expanded")).toBe("false");
      expect(await narrow.page.getByRole("link", { name: "Agents" }).count()).toBe(0);
      // The filters fold too, counting those in force; opened, a linked view shows them.
      const who = narrow.page.getByRole("combobox", { name: "Who" });
      expect(await who.count()).toBe(0);
      await narrow.page.getByRole("button", { name: "Filters (1 in force)" }).click();
      await expect.poll(() => who.inputValue(), { timeout: 15_000 }).toBe(actor.id);
      await entries.first().locator("summary").click();
      await expectNoHorizontalScroll(narrow.page);
      await expectAccessible(narrow.page, "audit log at 360 px, dark");
      await screenshot(narrow.page, "20-audit-narrow-dark");
      await menu.click();
      await screenshot(narrow.page, "20-menu-narrow-dark");
      await expectAccessible(narrow.page, "menu open at 360 px, dark");
      await narrow.page.getByRole("link", { name: "Agents" }).click();
      await narrow.page.waitForURL(/\/agents$/);
      await expect.poll(() => menu.getAttribute("aria-expanded")).toBe("false");
      expect(await narrow.page.getByRole("link", { name: "Audit log" }).count()).toBe(0);
    } finally {
      await narrow.close();
    }
  });

  it("is not offered to a member, and a member who follows a link is told why", async () => {
    const member = await apiCall<CreatedToken>("POST", "/api/v1/tokens", { name: uniqueName("member"), role: "member" });
    const other = await openBrowser();
    try {
      await signIn(other.page, member.token);
      expect(await other.page.getByRole("link", { name: "Audit log" }).count()).toBe(0);
      await other.page.goto(`${baseUrl()}/settings/audit?outcome=denied`);
      await other.page.getByRole("alert").getByText("Only admins can read the audit log.", { exact: false }).waitFor();
      expect(await other.page.getByRole("form", { name: "Audit filters" }).count()).toBe(0);
      await expectAccessible(other.page, "audit log refused to a member");
    } finally {
      await other.close();
    }
  });
});
