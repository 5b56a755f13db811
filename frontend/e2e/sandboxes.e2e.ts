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

interface ConfigSchema {
  properties: { resources: { properties: { memory_mb: { maximum: number } } } };
}

interface SandboxView {
  id: string;
  name: string;
  description: string;
}

describe("Settings → Sandboxes", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("signs in with a pasted token, after refusing a wrong one", async () => {
    const { page } = browser;
    await page.goto(baseUrl() + "/settings/sandboxes");
    await expectAccessible(page, "sign-in");
    await page.getByLabel("API token").fill("aux_not_a_real_token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("This token was not accepted. Check it and try again.").waitFor();
    await screenshot(page, "01-sign-in-refused");

    await signIn(page);
    await page.getByRole("heading", { name: /Sandboxes/ }).waitFor();
    const account = page.getByRole("navigation", { name: "Main" });
    await account.getByText("bootstrap").waitFor();
    await account.getByText("default").waitFor();
    await screenshot(page, "02-sandboxes");
    await expectAccessible(page, "sandboxes list");
  });

  it("adds a Local sandbox", async () => {
    const { page } = browser;
    const name = uniqueName("Local");
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: "Add sandbox" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.getByRole("radio", { name: /Local/ }).check();
    // Local takes no URL and no secret.
    expect(await dialog.getByRole("textbox", { name: "Domain" }).count()).toBe(0);
    await dialog.getByRole("textbox", { name: "Name" }).fill(name);
    await dialog.getByRole("textbox", { name: "Description" }).fill("Bubblewrap on this host");
    await expectAccessible(page, "add sandbox dialog");
    await screenshot(page, "03-add-local-dialog");
    await dialog.getByRole("button", { name: "Add sandbox" }).click();
    await dialog.waitFor({ state: "hidden" });

    const row = page.getByRole("listitem", { name });
    await row.waitFor();
    await row.getByText("Bubblewrap on this host").waitFor();
    await row.getByRole("button", { name: `Check health of ${name}` }).click();
    await row.getByText(/checked just now/).waitFor();
    await screenshot(page, "03-add-local-listed");
  });

  it("edits an OpenSandbox sandbox and keeps its secret", async () => {
    const { page } = browser;
    const name = uniqueName("Team OpenSandbox");
    const created = await apiCall<SandboxView>("POST", "/api/v1/sandboxes", {
      name,
      provider: "opensandbox",
      url: "sandbox.internal:8083",
      secret: "osk-team-0123456789-x9Qz",
    });
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: `Edit ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: "Edit sandbox" });
    const secret = dialog.getByLabel("API key", { exact: true });
    await secret.waitFor();
    expect(await secret.inputValue()).toBe("");
    expect(await secret.getAttribute("placeholder")).toBe("••••••x9Qz — leave blank to keep");
    // Its provider cannot change: no other provider's card is offered.
    expect(await dialog.getByRole("radio").count()).toBe(0);

    await dialog.getByRole("textbox", { name: "Description" }).fill("Edited, key kept");
    await dialog.getByRole("textbox", { name: "Volume mounts" }).fill("/srv/data:/data:ro\n/srv/models:/models:ro");
    await screenshot(page, "04-edit-keep-secret");
    await expectAccessible(page, "edit sandbox dialog");
    await dialog.getByRole("button", { name: "Save changes" }).click();
    // Save & test: nothing answers at sandbox.internal, so the dialog says the edit is saved but untested.
    const untested = page.getByRole("dialog", { name: "Sandbox saved" });
    await untested.getByRole("alert").getByText(/but the connection test failed/).waitFor();
    await untested.getByRole("button", { name: "Done" }).click();
    await untested.waitFor({ state: "hidden" });
    await page.getByRole("listitem", { name }).getByText("Edited, key kept").waitFor();

    const saved = await apiCall<{ description: string; config: { volume_mounts: string[] } }>(
      "GET",
      `/api/v1/sandboxes/${created.id}`,
    );
    expect(saved.config.volume_mounts).toEqual(["/srv/data:/data:ro", "/srv/models:/models:ro"]);
    const hint = await apiCall<{ is_set: boolean; last4: string }>("GET", `/api/v1/sandboxes/${created.id}/secret-hint`);
    expect(hint).toMatchObject({ is_set: true, last4: "x9Qz" });
  });

  it("shows the server's field errors under their fields", async () => {
    const { page } = browser;
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: "Add sandbox" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.getByRole("radio", { name: /OpenSandbox/ }).check();
    await dialog.getByRole("textbox", { name: "Name" }).fill(uniqueName("Broken"));
    await dialog.getByRole("textbox", { name: "Domain" }).fill("sandbox.internal:8083");
    await dialog.getByRole("textbox", { name: "Volume mounts" }).fill("/srv/data:/data\n/etc:/x");
    await dialog.getByRole("spinbutton", { name: "Timeout (seconds)" }).fill("0");
    await dialog.getByRole("button", { name: "Add sandbox" }).click();

    const timeout = dialog.getByRole("spinbutton", { name: "Timeout (seconds)" });
    await dialog.getByText("must be at least 1", { exact: true }).waitFor();
    expect(await timeout.getAttribute("aria-invalid")).toBe("true");
    const mountsError = await dialog
      .getByRole("textbox", { name: "Volume mounts" })
      .evaluate((el) => document.getElementById(el.getAttribute("aria-describedby")!.split(" ")[0]!)?.textContent);
    // The item as it was sent, quoted: a line may hold more than one.
    expect(mountsError).toMatch(/^“\/etc:\/x”: .*\/etc/);
    await screenshot(page, "05-field-errors");
    await expectAccessible(page, "dialog with field errors");
    await page.keyboard.press("Escape");
    await dialog.getByRole("button", { name: "Discard changes" }).click();
    await dialog.waitFor({ state: "hidden" });
  });

  it("bounds a Local sandbox's memory by the server's ceiling, and names it when passed", async () => {
    const { page } = browser;
    const catalogue = await apiCall<{ items: { name: string; config_schema: ConfigSchema }[] }>("GET", "/api/v1/providers");
    const local = catalogue.items.find((p) => p.name === "local")!;
    // Worked out from this host: half its memory, at most 65536 MiB.
    const ceiling = local.config_schema.properties.resources.properties.memory_mb.maximum;
    expect(ceiling).toBeLessThan(65536);

    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: "Add sandbox" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.getByRole("radio", { name: /Local/ }).check();
    await dialog.getByRole("textbox", { name: "Name" }).fill(uniqueName("Greedy"));
    // Resources sit in the Advanced fold.
    await dialog.getByText("Advanced settings").click();
    const memory = dialog.getByRole("spinbutton", { name: "Memory (MiB)" });
    expect(await memory.getAttribute("max")).toBe(String(ceiling));
    const help = await memory.evaluate((el) =>
      el.getAttribute("aria-describedby")!.split(" ").map((id) => document.getElementById(id)?.textContent).join(" "),
    );
    expect(help).toContain(`–${ceiling}.`);

    await memory.fill(String(ceiling + 1));
    await dialog.getByRole("button", { name: "Add sandbox" }).click();
    await dialog
      .getByText(`must be at most ${ceiling.toLocaleString("en-US")} MiB on this server (AUXILIA_LOCAL_MAX_MEMORY_MB)`, { exact: true })
      .waitFor();
    expect(await memory.getAttribute("aria-invalid")).toBe("true");
    // What was typed is not lost to a stray Escape: the dialog asks first.
    await page.keyboard.press("Escape");
    await dialog.getByRole("button", { name: "Discard changes" }).click();
    await dialog.waitFor({ state: "hidden" });
  });

  it("tests a connection that cannot be made and says it is the network", async () => {
    const { page } = browser;
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("button", { name: "Add sandbox" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.getByRole("radio", { name: /OpenSandbox/ }).check();
    await dialog.getByRole("textbox", { name: "Name" }).fill(uniqueName("Unreachable"));
    await dialog.getByRole("textbox", { name: "Domain" }).fill("127.0.0.1:1");
    await dialog.getByRole("button", { name: "Test connection" }).click();
    await dialog.getByText("Network:").waitFor();
    await dialog.getByText(/connection refused/).waitFor();
    await screenshot(page, "06-test-connection-network");
    await page.keyboard.press("Escape");
    await dialog.getByRole("button", { name: "Discard changes" }).click();
  });

  it("adds a sandbox with the keyboard alone", async () => {
    const { page } = browser;
    const name = uniqueName("Keyboard");
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("heading", { name: /Sandboxes/ }).waitFor();

    // Tab from the top of the page to the Add button.
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() => document.activeElement?.textContent?.trim());
      if (focused === "Add sandbox") break;
    }
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Add sandbox");
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.waitFor();

    // Into the provider cards, across to Local with the arrow keys.
    for (let i = 0; i < 5; i++) {
      const onRadio = await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type === "radio");
      if (onRadio) break;
      await page.keyboard.press("Tab");
    }
    for (let i = 0; i < 6; i++) {
      if (await dialog.getByRole("radio", { name: /Local/ }).isChecked()) break;
      await page.keyboard.press("ArrowRight");
    }
    expect(await dialog.getByRole("radio", { name: /Local/ }).isChecked()).toBe(true);
    await page.keyboard.press("Tab");
    await page.keyboard.type(name);
    await page.keyboard.press("Tab");
    await page.keyboard.type("Added without a mouse");
    await screenshot(page, "07-keyboard-add");
    // Enter in a field submits the form.
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("listitem", { name }).waitFor();
    // Focus is back on the button that opened the dialog.
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe("Add sandbox");
  });

  it("fits a 360 px wide screen without scrolling sideways", async () => {
    const narrow = await openBrowser({ viewport: { width: 360, height: 780 } });
    try {
      const { page } = narrow;
      await apiCall("POST", "/api/v1/sandboxes", {
        name: uniqueName("A rather long sandbox name for a narrow screen"),
        description: "A description long enough to need truncating on a phone-sized screen, as some are",
        provider: "opensandbox",
        url: "https://a-very-long-controller-hostname.sandboxes.internal.example:8083",
      });
      await signIn(page);
      await page.getByRole("list", { name: "Sandboxes" }).waitFor();
      await expectNoHorizontalScroll(page);
      await screenshot(page, "08-sandboxes-360px");
      await expectAccessible(page, "sandboxes at 360 px");

      await page.getByRole("button", { name: "Add sandbox" }).first().click();
      await page.getByRole("dialog", { name: "Add sandbox" }).waitFor();
      await expectNoHorizontalScroll(page);
      await screenshot(page, "08-add-dialog-360px");
    } finally {
      await narrow.close();
    }
  });

  it("reads well in the dark colour scheme too", async () => {
    const dark = await openBrowser({ colorScheme: "dark" });
    try {
      const { page } = dark;
      await signIn(page);
      await page.getByRole("list", { name: "Sandboxes" }).waitFor();
      await expectAccessible(page, "sandboxes, dark");
      await page.getByRole("button", { name: "Add sandbox" }).first().click();
      await page.getByRole("dialog", { name: "Add sandbox" }).getByRole("textbox", { name: "Name" }).waitFor();
      await expectAccessible(page, "add dialog, dark");
      await screenshot(page, "13-add-dialog-dark");
    } finally {
      await dark.close();
    }
  });
});
