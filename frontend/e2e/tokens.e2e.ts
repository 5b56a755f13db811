import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, expectAccessible, openBrowser, screenshot, signIn, uniqueName, type Browser } from "./browser";

describe("Settings → API tokens", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page, undefined, "/settings/tokens");
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("creates a member token, shows it once, and a member sees Sandboxes read-only", async () => {
    const { page } = browser;
    const name = uniqueName("ci");
    await page.getByRole("list", { name: "API tokens" }).waitFor();
    await expectAccessible(page, "tokens list");
    await page.getByRole("button", { name: "Create token" }).click();
    const dialog = page.getByRole("dialog", { name: "Create API token" });
    await dialog.getByRole("textbox", { name: "Name" }).fill(name);
    await dialog.getByRole("combobox", { name: "Role" }).selectOption("member");
    await dialog.getByRole("button", { name: "Create token" }).click();

    const shown = page.getByRole("dialog", { name: "Token created" });
    const value = await shown.getByRole("textbox", { name: "Token value" }).inputValue();
    expect(value.length).toBeGreaterThan(20);
    await shown.getByText(/shown only once/).waitFor();
    await screenshot(page, "11-token-created");
    await expectAccessible(page, "token created dialog");
    await shown.getByRole("button", { name: "Done" }).click();
    await page.getByRole("list", { name: "API tokens" }).getByText(name).waitFor();

    // The new token signs in as a member: no admin screens, no sandbox actions.
    const member = await openBrowser();
    try {
      await signIn(member.page, value);
      await member.page.getByRole("heading", { name: /Sandboxes/ }).waitFor();
      expect(await member.page.getByRole("link", { name: "API tokens" }).count()).toBe(0);
      expect(await member.page.getByRole("button", { name: "Add sandbox" }).count()).toBe(0);
      await member.page.getByText("Only admins can add, edit or delete them.").waitFor();
      await screenshot(member.page, "11-member-sandboxes");
      await member.page.goto(baseUrl() + "/settings/tokens");
      await member.page.getByRole("heading", { name: "Nothing here" }).waitFor();
    } finally {
      await member.close();
    }

    // Revoke it, with a confirm.
    await page.getByRole("button", { name: `Revoke ${name}` }).click();
    const confirm = page.getByRole("alertdialog", { name: "Revoke token" });
    await confirm.getByRole("button", { name: "Revoke token" }).click();
    await page.getByRole("list", { name: "API tokens" }).getByText(name).waitFor({ state: "detached" });
    // A note says so, read out politely, and goes by itself.
    const note = page.getByRole("status", { name: "Notifications" }).getByText("Token revoked: it no longer works.");
    await note.waitFor();
    await expectAccessible(page, "token revoked, with its note");
    await note.waitFor({ state: "detached", timeout: 15_000 });
  });
});
