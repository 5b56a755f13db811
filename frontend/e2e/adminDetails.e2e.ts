import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminToken,
  apiCall,
  baseUrl,
  expectAccessible,
  expectNoHorizontalScroll,
  openBrowser,
  signIn,
  uniqueName,
  type Browser,
} from "./browser";

interface SandboxView {
  id: string;
  name: string;
}

describe("Admin details", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows the saved secret's last characters and its length in the Edit dialog", async () => {
    const { page } = browser;
    const name = uniqueName("Hinted");
    await apiCall<SandboxView>("POST", "/api/v1/sandboxes", {
      name,
      provider: "opensandbox",
      url: "sandbox.internal:8083",
      secret: "osk-hint-0123456789-WXYZ",
    });
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: `Edit ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: "Edit sandbox" });
    await dialog.getByText("Saved: ends in WXYZ · 24 characters.").waitFor();
    const secret = dialog.getByLabel("API key", { exact: true });
    expect(await secret.evaluate((el) => el.getAttribute("aria-describedby")?.length ?? 0)).toBeGreaterThan(0);
    await expectAccessible(page, "edit dialog with the secret hint");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
  });

  it("knows a sandbox's health as soon as it is added, and after a test from the Edit dialog", async () => {
    const { page } = browser;
    const name = uniqueName("Probed");
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: "Add sandbox" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.getByRole("radio", { name: /Local/ }).check();
    await dialog.getByRole("textbox", { name: "Name" }).fill(name);
    await dialog.getByRole("button", { name: "Test connection" }).click();
    await dialog.getByText(/Connected in \d+ ms/).waitFor();
    await dialog.getByRole("button", { name: "Add sandbox" }).click();
    await dialog.waitFor({ state: "hidden" });
    // No click on "Check health": the row shows the probe made when it was added.
    const row = page.getByRole("listitem", { name });
    await row.getByText("ok", { exact: true }).waitFor();
    await row.getByText(/checked just now/).waitFor();

    // A sandbox made through the API is unknown until a test from its Edit dialog, which is its health at once.
    const other = uniqueName("Tested");
    await apiCall<SandboxView>("POST", "/api/v1/sandboxes", { name: other, provider: "local" });
    await page.reload();
    const otherRow = page.getByRole("listitem", { name: other });
    await otherRow.getByText("unknown", { exact: true }).waitFor();
    await otherRow.getByRole("button", { name: `Edit ${other}` }).click();
    const edit = page.getByRole("dialog", { name: "Edit sandbox" });
    await edit.getByRole("button", { name: "Test connection" }).click();
    await edit.getByText(/Connected in \d+ ms/).waitFor();
    await edit.getByRole("button", { name: "Cancel" }).click();
    await edit.waitFor({ state: "hidden" });
    await otherRow.getByText("ok", { exact: true }).waitFor();
    await expectAccessible(page, "sandboxes with health");
  });

  it("cuts a long URL only where the row ends, with the whole URL as its title", async () => {
    const { page } = browser;
    const name = uniqueName("Long URL");
    const url = "http://opensandbox-controller.internal.example:8083";
    await apiCall<SandboxView>("POST", "/api/v1/sandboxes", { name, provider: "opensandbox", url });
    await page.goto(baseUrl() + "/settings/sandboxes");
    const shown = page.getByRole("listitem", { name }).getByText(url);
    await shown.waitFor();
    expect(await shown.getAttribute("title")).toBe(url);
    // At 1280 px there is room: all of it shows.
    const fits = await shown.evaluate((el) => el.scrollWidth <= el.clientWidth);
    expect(fits).toBe(true);
  });

  it("names an icon button in a tooltip on hover and on keyboard focus, inside the window", async () => {
    const { page } = browser;
    const name = uniqueName("Tipped");
    await apiCall<SandboxView>("POST", "/api/v1/sandboxes", { name, provider: "local" });
    await page.goto(baseUrl() + "/settings/sandboxes");
    const edit = page.getByRole("button", { name: `Edit ${name}` });
    await edit.hover();
    const tooltip = page.getByRole("tooltip");
    await tooltip.getByText(`Edit ${name}`).waitFor();
    expect(await edit.getAttribute("aria-describedby")).toBe(await tooltip.getAttribute("id"));
    // Above the button, its arrow pointing at the button's centre, all of it in the window.
    const [button, tip, arrow] = await Promise.all([edit, tooltip, tooltip.locator(".tooltip__arrow")].map((l) => l.boundingBox()));
    if (!button || !tip || !arrow) throw new Error("the button, its tooltip or the arrow is not laid out");
    expect(tip.y + tip.height).toBeLessThanOrEqual(button.y);
    expect(Math.abs(arrow.x + arrow.width / 2 - (button.x + button.width / 2))).toBeLessThanOrEqual(1);
    expect(tip.x).toBeGreaterThanOrEqual(0);
    expect(tip.x + tip.width).toBeLessThanOrEqual(1280);
    await page.mouse.move(0, 0);
    await tooltip.waitFor({ state: "hidden" });

    // By keyboard: focus shows it at once, Escape hides it and leaves the focus where it was.
    await edit.focus();
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    await tooltip.getByText(`Edit ${name}`).waitFor();
    await expectAccessible(page, "a tooltip shown");
    await page.keyboard.press("Escape");
    await tooltip.waitFor({ state: "hidden" });
    expect(await edit.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it("keeps each provider's title inside its card, and the Settings label on a phone", async () => {
    const phone = await openBrowser({ viewport: { width: 360, height: 780 } });
    try {
      const { page } = phone;
      await signIn(page);
      // The navigation folds behind Menu on a phone; opened, it shows the Settings group.
      await page.getByRole("button", { name: "Menu" }).click();
      await page.getByText("Settings", { exact: true }).waitFor({ state: "visible" });
      await page.getByRole("button", { name: "Add sandbox" }).first().click();
      const dialog = page.getByRole("dialog", { name: "Add sandbox" });
      await dialog.getByRole("radio", { name: /OpenSandbox/ }).waitFor();
      const spills = await dialog.locator(".provider-card").evaluateAll((cards) =>
        cards.filter((card) => {
          const title = card.querySelector(".provider-card__title")!;
          return title.getBoundingClientRect().right > card.getBoundingClientRect().right;
        }).length,
      );
      expect(spills).toBe(0);
      await expectNoHorizontalScroll(page);
      await expectAccessible(page, "add sandbox dialog at 360 px");
    } finally {
      await phone.close();
    }
  });

  it("keeps a sign-in to its tab unless asked to keep it on this device", async () => {
    const other = await openBrowser();
    try {
      const { context, page } = other;
      // Off by default: a second tab asks for the token again.
      await signIn(page);
      const second = await context.newPage();
      await second.goto(baseUrl() + "/settings/sandboxes");
      await second.getByLabel("API token").waitFor();
      await second.close();

      // Signed in again with "Keep me signed in on this device": a second tab is signed in too.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByLabel("API token").fill(adminToken());
      await page.getByRole("checkbox", { name: "Keep me signed in on this device" }).check();
      await expectAccessible(page, "sign-in with keep me signed in");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("navigation", { name: "Main" }).waitFor();
      const third = await context.newPage();
      await third.goto(baseUrl() + "/settings/sandboxes");
      await third.getByRole("navigation", { name: "Main" }).waitFor();

      // Signing out in one tab signs out the other.
      await third.getByRole("button", { name: "Sign out" }).click();
      await third.getByLabel("API token").waitFor();
      await page.getByLabel("API token").waitFor();
      expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);
    } finally {
      await other.close();
    }
  });

  it("warns when an always-allowed shell undoes a file tool's approval, and runs the agent from its editor", async () => {
    const { page } = browser;
    const sandbox = await apiCall<SandboxView>("POST", "/api/v1/sandboxes", { name: uniqueName("Policy box"), provider: "local" });
    const agent = await apiCall<SandboxView>("POST", "/api/v1/agents", { name: uniqueName("Policy agent") });
    await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id });
    await page.goto(baseUrl() + `/agents/${agent.id}`);
    const card = page.getByRole("region", { name: new RegExp(sandbox.name) });
    await card.getByRole("combobox", { name: "write_file" }).selectOption("needs_approval");
    await card.getByText(/a shell command can read and write files/).waitFor();
    await expectAccessible(page, "agent editor with the shell warning");
    await card.getByRole("combobox", { name: "execute" }).selectOption("needs_approval");
    await card.getByText(/a shell command can read and write files/).waitFor({ state: "detached" });

    // The tools were changed and not saved: leaving asks first.
    await page.getByRole("link", { name: "Run this agent" }).click();
    const ask = page.getByRole("alertdialog", { name: "Leave without saving?" });
    await ask.getByRole("button", { name: "Leave and lose changes" }).click();
    await page.waitForURL(/\/runs\?agent=/);
    const picked = page.getByRole("form", { name: "Start a run" }).getByRole("combobox", { name: "Agent" });
    await picked.waitFor();
    expect(await picked.inputValue()).toBe(agent.id);
  });
});
