// The console's page under its Content-Security-Policy, in Chromium: it
// works within it, refuses to be framed and runs no inline script but its own.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminToken, baseUrl, openBrowser, signIn, type Browser } from "./browser";

/** The directives of a Content-Security-Policy header, with their sources. */
function directives(policy: string | null | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const directive of (policy ?? "").split(";")) {
    const [name, ...sources] = directive.trim().split(/\s+/);
    if (name) out.set(name, sources);
  }
  return out;
}

/** A page on another origin (another port of this host) that frames the console. */
async function framingSite(target: string): Promise<{ url: string; server: Server }> {
  const server = createServer((_, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(`<!doctype html><title>Win a prize</title><iframe src="${target}" title="console" width="800" height="600"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

describe("Security headers", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  // The run console and its terminal, the files and every other screen are
  // toured by their own scenarios, whose browsers fail on a violation too.
  it("lets the console's main screens work within the page's policy", async () => {
    const { page } = browser;
    const document = await page.goto(baseUrl() + "/settings/sandboxes");
    const policy = directives(document?.headers()["content-security-policy"]);
    expect(policy.get("default-src")).toEqual(["'none'"]);
    expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy.get("script-src")?.[0]).toBe("'self'");
    expect(policy.get("script-src")).not.toContain("'unsafe-inline'");

    await signIn(page);
    await page.getByRole("heading", { name: /Sandboxes/ }).waitFor();
    await page.getByRole("button", { name: "Add sandbox" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add sandbox" });
    await dialog.getByRole("radio", { name: /Local/ }).check();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("link", { name: "Agents", exact: true }).first().click();
    await page.getByRole("link", { name: "New agent" }).click();
    await page.getByRole("textbox", { name: "Name" }).waitFor();
    await page.goto(baseUrl() + "/runs");
    await page.getByRole("heading", { name: "Runs", level: 1 }).waitFor();
    await page.goto(baseUrl() + "/settings/tokens");
    await page.getByRole("list", { name: "API tokens" }).waitFor();
    await page.goto(baseUrl() + "/settings/audit");
    await page.getByRole("list", { name: "Audit entries" }).waitFor();
    expect(browser.takeViolations()).toEqual([]);
  });

  it("refuses to be framed by another site", async () => {
    const { page } = browser;
    const site = await framingSite(baseUrl() + "/settings/sandboxes");
    try {
      const refused = page.waitForEvent("console", { predicate: (m) => m.text().includes("frame-ancestors 'none'") });
      await page.goto(site.url);
      await refused;
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(frame, "the page has its frame").toBeDefined();
      // The frame holds the browser's error page, not the console.
      expect(await frame!.locator("#root").count()).toBe(0);
      expect(frame!.url()).not.toContain(baseUrl());
    } finally {
      site.server.close();
    }
    expect(browser.takeViolations().join("\n")).toMatch(/Framing '.*' violates .*"frame-ancestors 'none'"/);
  });

  it("runs the page's own inline script, named by its hash, and no other", async () => {
    // The header names each inline script of the page as served, and nothing else.
    const response = await fetch(baseUrl() + "/");
    const html = await response.text();
    const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline.length).toBeGreaterThan(0);
    const hashes = inline.map((text) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`);
    expect(directives(response.headers.get("content-security-policy")).get("script-src")).toEqual(["'self'", ...hashes]);

    // Signed in (a token in the tab's storage), Chromium runs it: it asks
    // for the first screen's data early.
    const { page } = browser;
    await page.goto(baseUrl() + "/");
    await page.evaluate((token) => sessionStorage.setItem("auxilia.token", token), adminToken());
    await page.goto(baseUrl() + "/settings/sandboxes");
    await page.getByRole("heading", { name: /Sandboxes/ }).waitFor();
    expect(await page.evaluate(() => typeof window.auxiliaEarly?.at)).toBe("number");
    expect(browser.takeViolations()).toEqual([]);

    // Script that markup brings in is refused: an inline element, an event
    // handler, code made from a string.
    const ran = await page.evaluate(async () => {
      const ran: string[] = [];
      const mark = (what: string) => ran.push(what);
      (window as unknown as { mark: typeof mark }).mark = mark;
      const script = document.createElement("script");
      script.textContent = "mark('inline script')";
      document.head.append(script);
      document.body.insertAdjacentHTML("beforeend", `<img src="data:," alt="" onerror="mark('event handler')">`);
      // A string timer: a string evaluated here directly would be Playwright's, which the policy lets through.
      (setTimeout as (code: string, ms: number) => number)("mark('code from a string')", 0);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return ran;
    });
    expect(ran).toEqual([]);
    const refused = browser.takeViolations().join("\n");
    expect(refused).toContain("script-src-elem refused inline");
    expect(refused).toContain("script-src-attr refused inline");
    expect(refused).toContain("script-src refused eval");
  });
});
