// Drives Debian's Chromium (never a downloaded browser) through playwright-core.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { expect, inject } from "vitest";
import { frontendDir } from "./server";

export const screenshotDir = join(frontendDir, "e2e-screenshots");

const chromiumPath = "/usr/bin/chromium";

const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** The policy violations seen so far, handed over once: a scenario that provokes some takes them. */
  takeViolations: () => string[];
  /** Closes the browser; fails when a policy violation was seen that no scenario took. */
  close: () => Promise<void>;
}

interface BrowserOptions {
  viewport?: { width: number; height: number };
  colorScheme?: "light" | "dark";
}

/** A fresh profile each time: nothing carries over between scenarios. */
export async function openBrowser({ viewport = { width: 1280, height: 860 }, colorScheme = "light" }: BrowserOptions = {}): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`${chromiumPath} is missing: install Debian's Chromium (apt-get install -y chromium).`);
  }
  const profile = mkdtempSync(join(tmpdir(), "auxilia-e2e-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport,
    colorScheme,
  });
  const violations = await recordViolations(context);
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  return {
    context,
    page,
    takeViolations: () => violations.splice(0),
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      expect(violations, "what the pages' security headers refused").toEqual([]);
    },
  };
}

/**
 * Records, in every page and frame of context, what a Content-Security-Policy
 * refused (the securitypolicyviolation events) and what the console says about
 * the security headers (their refusals, and a header the browser cannot read),
 * so that every scenario also shows that the console works within its policy.
 */
async function recordViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeBinding("reportPolicyViolation", ({ frame }, seen: string) => violations.push(`${frame.url()}: ${seen}`));
  await context.addInitScript(() => {
    const report = (window as unknown as { reportPolicyViolation: (seen: string) => void }).reportPolicyViolation;
    document.addEventListener("securitypolicyviolation", (e) => report(`${e.effectiveDirective} refused ${e.blockedURI || "?"}`));
  });
  const watch = (page: Page) =>
    page.on("console", (message) => {
      if (/Content Security Policy|Permissions-Policy|Cross-Origin/.test(message.text())) violations.push(`${page.url()}: ${message.text()}`);
    });
  context.pages().forEach(watch);
  context.on("page", watch);
  return violations;
}

export const baseUrl = () => inject("baseUrl");
export const adminToken = () => inject("adminToken");

/** Signs in through the sign-in screen, as a person would. */
export async function signIn(page: Page, token = adminToken(), path = "/settings/sandboxes") {
  await page.goto(baseUrl() + path);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core in the page; fails on any serious or critical violation. */
export async function expectAccessible(page: Page, screen: string) {
  // Evaluated, not added as a <script>: the console's policy refuses inline scripts.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  const severe = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(severe.map((v) => `${screen}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** The page fits its width: nothing scrolls sideways. */
export async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => {
    const el = document.scrollingElement!;
    return { scrollWidth: el.scrollWidth, clientWidth: el.clientWidth };
  });
  expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
}

/** Talks to the API directly, to set up what a scenario starts from. */
export async function apiCall<T = unknown>(method: string, path: string, body?: unknown, token = adminToken()): Promise<T> {
  const response = await fetch(baseUrl() + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export function uniqueName(prefix: string) {
  return `${prefix} ${Math.random().toString(36).slice(2, 7)}`;
}
