import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall, expectAccessible, openBrowser, screenshot, signIn, uniqueName, type Browser } from "./browser";

interface Created {
  id: string;
  name: string;
}

describe("Settings → Usage", () => {
  let browser: Browser;
  let sandbox: Created;
  let agent: Created;
  const thread = uniqueName("usage-thread").replace(/[^A-Za-z0-9._:-]/g, "-");

  // A workspace of its own: other scenarios' runs would crowd its top lists.
  const token = inject("meteredAdminToken");

  beforeAll(async () => {
    // A run on a local sandbox makes an instance, which is metered from its creation on.
    sandbox = await apiCall<Created>("POST", "/api/v1/sandboxes", { name: uniqueName("Metered box"), provider: "local" }, token);
    agent = await apiCall<Created>("POST", "/api/v1/agents", { name: uniqueName("Metered agent") }, token);
    await apiCall("PUT", `/api/v1/agents/${agent.id}/sandbox`, { sandbox_id: sandbox.id }, token);
    const run = await apiCall<Created>("POST", `/api/v1/agents/${agent.id}/threads/${thread}/runs`, undefined, token);
    await apiCall("POST", `/api/v1/runs/${run.id}/execute`, { command: "true" }, token);
    browser = await openBrowser();
    await signIn(browser.page, token, "/settings/usage");
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("charts instance-hours per day by sandbox, with a legend, a table and the top agents and threads", async () => {
    const { page } = browser;
    await page.getByRole("link", { name: "Usage" }).waitFor();
    const table = page.getByRole("table", { name: "Instance-hours per day by sandbox" });
    await table.waitFor({ timeout: 15_000 });
    await table.getByRole("columnheader", { name: sandbox.name }).waitFor();
    for (const name of ["Commands", "Command hours", "Terminal hours", "Kept GiB-days"]) {
      await table.getByRole("columnheader", { name }).waitFor();
    }
    // Today's row: its command counted in the Commands column.
    const today = table.getByRole("row", { name: new RegExp(new Date().toISOString().slice(0, 10)) });
    const headers = await table.getByRole("columnheader").allTextContents();
    expect((await today.getByRole("cell").nth(headers.indexOf("Commands") - 1).textContent()) ?? "").toBe("1");
    await page.getByRole("list", { name: "Legend" }).getByText(sandbox.name).waitFor();
    expect(await page.locator("svg.usage-chart__svg rect").count()).toBeGreaterThan(0);
    await page.getByRole("region", { name: "Top agents" }).getByText(agent.name).waitFor();
    await page.getByRole("region", { name: "Top threads" }).getByText(thread).waitFor();
    await expectAccessible(page, "usage");
    await screenshot(page, "usage");

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
    const csv = await readFile((await download.path())!, "utf8");
    const [header, ...lines] = csv.trim().split("\n");
    expect(header).toBe(
      "period_start,period_end,group_by,key,name,running_seconds,paused_seconds,instances_created,instances_failed,instances_replaced,commands,command_seconds,terminal_seconds,kept_byte_days,estimated_cost,currency",
    );
    expect(lines.some((l) => l.includes(sandbox.id) && l.includes(sandbox.name))).toBe(true);
  });

  it("shows a member the workspace's totals only", async () => {
    const member = await apiCall<{ token: string }>("POST", "/api/v1/tokens", { name: uniqueName("member"), role: "member" }, token);
    const other = await openBrowser();
    try {
      await signIn(other.page, member.token, "/settings/usage");
      await other.page.getByRole("table", { name: "Instance-hours per day, the workspace's total" }).waitFor({ timeout: 15_000 });
      expect(await other.page.getByRole("region", { name: "Top agents" }).count()).toBe(0);
      await expectAccessible(other.page, "usage as a member");
    } finally {
      await other.close();
    }
  });
});
