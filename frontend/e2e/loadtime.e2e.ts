import { describe, expect, it } from "vitest";
import { adminToken, apiCall, baseUrl, openBrowser, uniqueName } from "./browser";

// How long a signed-in person waits for the Sandboxes list on a cold load
// (an empty cache, a new tab): reported, not asserted, as the machine's load varies.
describe("Cold load of Sandboxes", () => {
  it("reports the time until the list is visible, and sends the assets compressed", { timeout: 180_000 }, async () => {
    await apiCall("POST", "/api/v1/sandboxes", { name: uniqueName("load"), provider: "local" });
    const browser = await openBrowser();
    const runs: number[] = [];
    const encodings = new Set<string>();
    let sizes = { transfer: 0, decoded: 0 };
    const overlaps: string[] = [];
    try {
      await browser.context.addInitScript((token) => sessionStorage.setItem("auxilia.token", token), adminToken());
      for (let i = 0; i < 3; i++) {
        const page = await browser.context.newPage(); // a new tab: nothing in sessionStorage but the token
        const cdp = await browser.context.newCDPSession(page);
        await cdp.send("Network.clearBrowserCache");
        page.on("response", (response) => {
          if (response.url().includes("/assets/") && response.url().endsWith(".js")) {
            encodings.add(response.headers()["content-encoding"] ?? "identity");
          }
        });
        const started = Date.now();
        await page.goto(baseUrl() + "/settings/sandboxes");
        await page.getByRole("list", { name: "Sandboxes" }).waitFor();
        runs.push(Date.now() - started);
        sizes = await page.evaluate(() =>
          performance
            .getEntriesByType("resource")
            .map((e) => e as PerformanceResourceTiming)
            .filter((e) => e.name.includes("/assets/"))
            .reduce((sum, e) => ({ transfer: sum.transfer + e.encodedBodySize, decoded: sum.decoded + e.decodedBodySize }), { transfer: 0, decoded: 0 }),
        );
        // When the list's request started, against when the screen's code had arrived.
        overlaps.push(
          await page.evaluate(() => {
            const entries = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
            const data = entries.find((e) => e.name.includes("/api/v1/sandboxes"));
            const chunk = entries.find((e) => /\/assets\/SandboxesPage-[^/]*\.js$/.test(e.name));
            return data && chunk ? `${Math.round(data.startTime - chunk.responseEnd)}` : "?";
          }),
        );
        await page.close();
      }
    } finally {
      await browser.close();
    }
    const median = [...runs].sort((a, b) => a - b)[1];
    console.log(
      `Sandboxes list visible on a cold load: ${median} ms (median of ${runs.join(", ")} ms); ` +
        `assets ${(sizes.transfer / 1000).toFixed(1)} kB sent for ${(sizes.decoded / 1000).toFixed(1)} kB; ` +
        `the list's request started ${overlaps.join(", ")} ms after the screen's code arrived (negative: before)`,
    );
    expect(encodings).toContain("br"); // files under 512 bytes are sent as they are
    expect(sizes.transfer).toBeLessThan(sizes.decoded / 2);
  });
});
