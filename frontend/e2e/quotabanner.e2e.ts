import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall, expectAccessible, openBrowser, screenshot, signIn, uniqueName, type Browser } from "./browser";

interface Created {
  id: string;
  name: string;
}

describe("Quota banner", () => {
  let browser: Browser;
  let agent: Created;

  // A workspace of its own, whose instances quota the operator set to 5:
  // no other scenario's instances count against it.
  const token = inject("quotaAdminToken");
  const start = (thread: string) => apiCall("POST", `/api/v1/agents/${agent.id}/threads/${thread}/runs`, undefined, token);

  beforeAll(async () => {
    const sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: uniqueName("Quota box"), provider: "local" }, token);
    agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Quota agent") }, token);
    await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id }, token);
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("warns at 80 % of the instances quota, then says it is used up at 100 %", async () => {
    const { page } = browser;
    for (const thread of ["one", "two", "three", "four"]) await start(thread);
    await signIn(page, token, "/settings/sandboxes");
    const banner = page.getByRole("status").filter({ hasText: "quota" });
    await banner.getByText("The workspace has used 80% of its live instances quota (4 of 5 live instances).").waitFor({ timeout: 15_000 });
    expect(await banner.getAttribute("class")).toContain("notice");
    await expectAccessible(page, "quota banner at 80 %");
    await screenshot(page, "quota-banner-80");

    await start("five");
    await page.reload();
    await banner
      .getByText("The workspace's live instances quota is used up (5 of 5 live instances): new threads are refused until instances are released.")
      .waitFor({ timeout: 15_000 });
    expect(await banner.getAttribute("class")).toContain("problem");
    await expectAccessible(page, "quota banner at 100 %");
    await screenshot(page, "quota-banner-100");

    const alerts = await apiCall<{ items: { subject: string; level: number }[] }>("GET", "/api/v1/alerts", undefined, token);
    expect(alerts.items.map((a) => `${a.subject} ${a.level}`)).toEqual(["instances 100", "instances 80"]);
  });
});
