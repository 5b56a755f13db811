// Single sign-on in Chromium: a person signs in through a real certified
// OpenID provider's own login and consent pages (panva's oidc-provider, on
// loopback), lands in the console with the role their group gives, sees the
// workspace's people, and signs out.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { expectAccessible, openBrowser, screenshot, type Browser } from "./browser";
import { repoRoot, startServer, type RunningServer } from "./server";

const idpDir = join(repoRoot, "pkg", "sso", "testdata", "idp");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function startIdP(redirect: string, secret: string): Promise<{ issuer: string; child: ChildProcess }> {
  if (!existsSync(join(idpDir, "node_modules", "oidc-provider"))) {
    const made = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: idpDir, stdio: "inherit" });
    if (made.status !== 0) throw new Error(`installing the test provider failed (exit ${made.status})`);
  }
  const port = await freePort();
  const accounts = {
    alice: { email: "alice@example.com", name: "Alice Admin", groups: ["aux-admins"] },
    carol: { email: "carol@example.com", name: "Carol Elsewhere", groups: ["unrelated"] },
  };
  const child = spawn("node", ["server.mjs", String(port), redirect, secret, JSON.stringify(accounts)], {
    cwd: idpDir,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the test provider did not start in 30 s")), 30_000);
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.startsWith("ready ")) {
        clearTimeout(timer);
        resolve(line.slice("ready ".length));
      }
    });
  });
  return { issuer, child };
}

describe("Single sign-on", () => {
  let idp: ChildProcess;
  let server: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    const port = await freePort();
    const secret = randomBytes(16).toString("hex");
    const started = await startIdP(`http://127.0.0.1:${port}/auth/oidc/callback`, secret);
    idp = started.child;
    server = await startServer(inject("binary"), `aux_${randomBytes(32).toString("base64url")}`, {
      AUXILIA_LISTEN: `127.0.0.1:${port}`,
      AUXILIA_OIDC_ISSUER: started.issuer,
      AUXILIA_OIDC_CLIENT_ID: "auxilia",
      AUXILIA_OIDC_CLIENT_SECRET: secret,
      AUXILIA_OIDC_PROVIDER_NAME: "Test IdP",
      AUXILIA_OIDC_GROUP_ROLES: "aux-admins=default:admin",
    });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    idp?.kill();
  });

  it("signs a person in through the provider's own pages and out again", async () => {
    const { page } = browser;
    await page.goto(server.url + "/");
    const sso = page.getByRole("link", { name: "Sign in with Test IdP" });
    await sso.waitFor();
    await page.getByLabel("API token").waitFor(); // the token stays on offer
    await screenshot(page, "34-sign-in-with-provider");
    await sso.click();

    // The provider's own login and consent pages.
    await page.locator('input[name="login"]').fill("alice");
    await page.locator('input[name="password"]').fill("any password");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();

    // Back in the console, as the person, with the role their group gives.
    await page.waitForURL((u) => u.href.startsWith(server.url));
    await page.getByText("alice@example.com").first().waitFor();
    expect(await page.getByRole("link", { name: "API tokens" }).count()).toBe(1);
    await page.getByRole("link", { name: "People" }).click();
    const people = page.getByRole("list", { name: "People" });
    await people.getByText("Alice Admin").waitFor();
    await people.getByText("you").waitFor();
    await screenshot(page, "34-people");
    const cookies = await browser.context.cookies(server.url);
    const session = cookies.find((c) => c.name === "auxilia_session");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Lax");

    await page.getByRole("button", { name: /Sign out/ }).click();
    await page.getByRole("link", { name: "Sign in with Test IdP" }).waitFor();
    const after = await browser.context.cookies(server.url);
    expect(after.find((c) => c.name === "auxilia_session")).toBeUndefined();
  });

  it("brings a person none of whose groups gives a workspace back to sign-in, saying why", async () => {
    // A browser of their own: the provider still knows the person signed in above.
    const own = await openBrowser();
    try {
      await refusedSignIn(own);
    } finally {
      await own.close();
    }
  });

  async function refusedSignIn({ page, context }: Browser) {
    await page.goto(server.url + "/");
    await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
    await page.locator('input[name="login"]').fill("carol");
    await page.locator('input[name="password"]').fill("any password");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();

    await page.waitForURL((u) => u.href.startsWith(server.url));
    await page.getByRole("status").getByText(/none of your groups gives you a workspace here/).waitFor();
    // The address no longer carries the reason: a reload does not say it again.
    expect(new URL(page.url()).search).toBe("");
    await page.getByRole("link", { name: "Sign in with Test IdP" }).waitFor();
    await expectAccessible(page, "sign-in refused for want of a workspace");
    const cookies = await context.cookies(server.url);
    expect(cookies.find((c) => c.name === "auxilia_session")).toBeUndefined();
  }
});
