import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { CostBudget, Quota, WorkspaceDetail } from "../api/types";
import { fakeApi } from "../test/fakeApi";
import { renderSignedIn } from "../test/render";
import { QuotaBanner } from "./QuotaBanner";

const quota = (q: Partial<Quota> & Pick<Quota, "name">): Quota => ({ limit: 0, default: true, used: 0, alert: 0, ...q });

function workspace(quotas: Quota[], budget: CostBudget | null = null): WorkspaceDetail {
  return { id: "00000000-0000-0000-0000-0000000000aa", name: "default", quotas, cost_budget: budget };
}

const budget = (b: Partial<CostBudget>): CostBudget => ({
  limit: 0,
  default: true,
  estimated_cost: null,
  currency: "USD",
  alert: 0,
  ...b,
});

describe("QuotaBanner", () => {
  it("says nothing while every quota is below 80 %", async () => {
    const api = fakeApi({
      "GET /api/v1/workspace": {
        body: workspace([quota({ name: "instances", limit: 10, used: 7 }), quota({ name: "instance_hours", limit: 100, used: null })]),
      },
    });
    const { container } = renderSignedIn(<QuotaBanner />);
    await expect.poll(() => api.callsTo("GET", "/api/v1/workspace").length).toBe(1);
    expect(container).toBeEmptyDOMElement();
  });

  it("warns at 80 % and says a used-up quota refuses new threads", async () => {
    fakeApi({
      "GET /api/v1/workspace": {
        body: workspace([
          quota({ name: "instances", limit: 10, used: 10, alert: 100, default: false }),
          quota({ name: "threads_per_agent", limit: 5, used: 4, alert: 80 }),
        ]),
      },
    });
    renderSignedIn(<QuotaBanner />);
    const banner = await screen.findByRole("status");
    expect(banner).toHaveClass("problem");
    const items = banner.querySelectorAll("li");
    expect([...items].map((li) => li.textContent)).toEqual([
      "The workspace's live instances quota is used up (10 of 10 live instances): new threads are refused until instances are released.",
      "The workspace has used 80% of its threads per agent quota (4 of 5 threads with a live instance, for the busiest agent).",
    ]);
  });

  it("tells the estimated cost against the budget, an estimate that refuses nothing", async () => {
    fakeApi({
      "GET /api/v1/workspace": {
        body: workspace([quota({ name: "instances", limit: 10, used: 2 })], budget({ limit: 500, estimated_cost: 412.5, alert: 80 })),
      },
    });
    renderSignedIn(<QuotaBanner />);
    const banner = await screen.findByRole("status");
    expect(banner).toHaveClass("notice");
    expect(banner).toHaveTextContent("The workspace has used 80% of its cost budget (an estimated $412.50 of $500.00 this month).");
  });

  it("says a used-up budget lets runs go on", async () => {
    fakeApi({
      "GET /api/v1/workspace": {
        body: workspace([], budget({ limit: 100, estimated_cost: 130, currency: "EUR", alert: 100, default: false })),
      },
    });
    renderSignedIn(<QuotaBanner />);
    const banner = await screen.findByRole("status");
    expect(banner).toHaveClass("problem");
    expect(banner).toHaveTextContent("The workspace's cost budget is used up (an estimated €130.00 of €100.00 this month); runs go on.");
  });

  it("shows nothing when the workspace cannot be read", async () => {
    const api = fakeApi({ "GET /api/v1/workspace": { status: 503, body: { reason: "service_unavailable" } } });
    const { container } = renderSignedIn(<QuotaBanner />);
    await expect.poll(() => api.callsTo("GET", "/api/v1/workspace").length).toBe(1);
    expect(container).toBeEmptyDOMElement();
  });
});
