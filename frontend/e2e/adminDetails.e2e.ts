import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, baseUrl, expectAccessible, openBrowser, signIn, uniqueName, type Browser } from "./browser";

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
});
