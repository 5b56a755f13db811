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
});
