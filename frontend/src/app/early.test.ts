import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createQueryClient } from "./App";
import { preloadScreen } from "./routes";
import { sandboxKeys } from "../api/keys";
import { meKey, prefetchMe } from "../session/me";
import { fakeApi } from "../test/fakeApi";

// The inline script of index.html, run as the browser runs it before the app's code.
const html = readFileSync(resolve(import.meta.dirname, "../../index.html"), "utf8");
const inlineScript = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
// A browser resolves the script's paths against the page; Node's fetch wants whole URLs.
function askEarly() {
  const fetch = globalThis.fetch;
  new Function("fetch", inlineScript)((path: string, init: RequestInit) => fetch(new URL(path, window.location.href).href, init));
}

const me = { token_id: "t1", name: "Ada", role: "admin", workspace: { id: "w1", name: "Acme" } };
const sandbox = { id: "s1", name: "Python", provider: "local" };

function serve() {
  return fakeApi({
    "GET /api/v1/me": { body: me },
    "GET /api/v1/sandboxes": { body: { items: [sandbox], next_page_token: "" } },
    "GET /api/v1/providers": { body: { items: [] } },
  });
}

describe("the first screen's requests, asked for by index.html", () => {
  beforeEach(() => window.history.pushState({}, "", "/settings/sandboxes"));
  afterEach(() => {
    delete window.auxiliaEarly;
    window.history.pushState({}, "", "/");
  });

  it("are the ones the app makes as it starts: each is answered early, none asked twice", async () => {
    expect(inlineScript).toContain("auxiliaEarly");
    sessionStorage.setItem("auxilia.token", "aux_ada");
    const server = serve();
    askEarly();
    expect(server.calls.map((c) => `${c.path}?${c.query}`)).toEqual([
      "/api/v1/me?",
      "/api/v1/sandboxes?page_size=200",
      "/api/v1/providers?",
    ]);
    expect(server.calls.every((c) => c.headers.get("Authorization") === "Bearer aux_ada")).toBe(true);

    const client = createQueryClient();
    await Promise.all([prefetchMe(client), preloadScreen(client, window.location.pathname, true)]);
    expect(client.getQueryData(meKey)).toEqual(me);
    expect(client.getQueryData(sandboxKeys.list())).toEqual([sandbox]);
    expect(client.getQueryData(sandboxKeys.providers)).toEqual([]);
    expect(server.calls).toHaveLength(3);
    expect(Object.keys(window.auxiliaEarly?.responses ?? {})).toEqual([]);
  });

  it("are not asked for signed out, and not used for another token", async () => {
    const server = serve();
    askEarly();
    expect(server.calls).toHaveLength(0);
    expect(window.auxiliaEarly).toBeUndefined();

    sessionStorage.setItem("auxilia.token", "aux_ada");
    askEarly();
    sessionStorage.setItem("auxilia.token", "aux_bob"); // signed in again as someone else since
    const client = createQueryClient();
    await prefetchMe(client);
    expect(client.getQueryData(meKey)).toEqual(me);
    expect(server.callsTo("GET", "/api/v1/me").map((c) => c.headers.get("Authorization"))).toEqual([
      "Bearer aux_ada",
      "Bearer aux_bob",
    ]);
  });
});
