import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, baseUrl, expectAccessible, openBrowser, screenshot, signIn, uniqueName, type Browser } from "./browser";

// The Add/Edit sandbox dialog's shape: its own provider alone when editing,
// its first focus, the Advanced fold, and its guards on a refused or unsaved form.
describe("The sandbox dialog", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
    await signIn(browser.page);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("opens Add on its first field, folds the advanced settings, and guards what was typed", async () => {
    const { page } = browser;
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: "Add sandbox" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.getByRole("textbox", { name: "Name" }).waitFor();

    // First focus: the chosen provider, not Close nor the list around the cards.
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLInputElement | null;
      return { type: el?.type, checked: el?.checked, label: el?.getAttribute("aria-label") };
    });
    expect(focused).toEqual({ type: "radio", checked: true, label: null });

    await dialog.getByRole("radio", { name: /Local/ }).check();
    await dialog.getByRole("textbox", { name: "Name" }).fill(uniqueName("Folded"));

    // Advanced settings: a named fold, closed, whose fields are out of sight.
    const fold = dialog.getByRole("group", { name: "Advanced settings" });
    expect(await fold.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    const size = dialog.getByRole("spinbutton", { name: "Size" });
    expect(await size.isVisible()).toBe(false);
    const summary = dialog.getByText("Advanced settings", { exact: true });
    await summary.click();
    await size.fill("201");
    await summary.click();
    expect(await size.isVisible()).toBe(false);
    await expectAccessible(page, "add sandbox dialog, folded");

    // A refusal inside the fold opens it, and the summary beside Save links to the field.
    await dialog.getByRole("button", { name: "Add sandbox" }).click();
    const errors = dialog.getByRole("alert").filter({ hasText: "1 field needs a change before saving:" });
    await errors.waitFor();
    expect(await fold.evaluate((el) => (el as HTMLDetailsElement).open)).toBe(true);
    expect(await size.getAttribute("aria-invalid")).toBe("true");
    await errors.getByRole("link", { name: /Warm pool: Size/ }).click();
    expect(await size.evaluate((el) => el === document.activeElement)).toBe(true);
    await screenshot(page, "sandboxdialog-refused");
    await expectAccessible(page, "add sandbox dialog, refused");

    // What was typed is not lost to Cancel or Escape: the dialog asks first.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    const ask = dialog.getByText("Close and lose the changes made here?");
    await ask.waitFor();
    await dialog.getByRole("button", { name: "Keep editing" }).click();
    await ask.waitFor({ state: "hidden" });
    expect(await size.inputValue()).toBe("201");
    await page.keyboard.press("Escape");
    await ask.waitFor();
    expect(await dialog.isVisible()).toBe(true);
    await dialog.getByRole("button", { name: "Discard changes" }).click();
    await dialog.waitFor({ state: "hidden" });
    // The field that focused itself did not take the opener's place: focus goes back to Add sandbox.
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Add sandbox");
  });

  it("shows only the edited sandbox's own provider, as a line", async () => {
    const { page } = browser;
    const name = uniqueName("Own provider");
    await apiCall("POST", "/api/v1/sandboxes", { name, provider: "local" });
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: `Edit ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: "Edit sandbox" });
    await dialog.getByRole("textbox", { name: "Name" }).waitFor();
    expect(await dialog.getByRole("radio").count()).toBe(0);
    await dialog.getByText("(cannot change once saved)").waitFor();
    expect(await dialog.getByText(/OpenSandbox|Daytona/).count()).toBe(0);
    await expectAccessible(page, "edit sandbox dialog");

    // Nothing changed: Escape closes without asking.
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
  });
});
