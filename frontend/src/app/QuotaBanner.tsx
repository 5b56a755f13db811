import { AlertTriangle } from "lucide-react";
import type { CostBudget, Quota } from "../api/types";
import { useWorkspace } from "../api/workspace";

const words: Record<Quota["name"], { quota: string; unit: string; full: string }> = {
  instances: {
    quota: "live instances",
    unit: "live instances",
    full: "new threads are refused until instances are released.",
  },
  instance_hours: {
    quota: "monthly instance-hours",
    unit: "instance-hours this month",
    full: "no new instance is made and idle ones are paused until it starts again next month.",
  },
  threads_per_agent: {
    quota: "threads per agent",
    unit: "threads with a live instance, for the busiest agent",
    full: "that agent's new threads are refused until its instances are released.",
  },
};

function sentence(q: Quota): string {
  const w = words[q.name];
  const used = `${q.used ?? 0} of ${q.limit} ${w.unit}`;
  return q.alert >= 100
    ? `The workspace's ${w.quota} quota is used up (${used}): ${w.full}`
    : `The workspace has used ${q.alert}% of its ${w.quota} quota (${used}).`;
}

function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

/** The budget's sentence: an estimate, and it refuses nothing. */
function budgetSentence(b: CostBudget): string {
  const cost = `an estimated ${money(b.estimated_cost ?? 0, b.currency)} of ${money(b.limit, b.currency)} this month`;
  return b.alert >= 100
    ? `The workspace's cost budget is used up (${cost}); runs go on.`
    : `The workspace has used ${b.alert}% of its cost budget (${cost}).`;
}

/**
 * A banner above every screen while one of the workspace's quotas, or its
 * estimated-cost budget, is at 80 % or more of its limit. The operator sets
 * them; the banner only tells.
 */
export function QuotaBanner() {
  const { data } = useWorkspace();
  const alerts = (data?.quotas ?? []).filter((q) => q.alert > 0);
  const budget = data?.cost_budget && data.cost_budget.alert > 0 ? data.cost_budget : null;
  if (alerts.length === 0 && !budget) return null;
  const full = alerts.some((q) => q.alert >= 100) || (budget?.alert ?? 0) >= 100;
  return (
    <div className={full ? "problem quota-banner" : "notice quota-banner"} role="status" aria-live="polite">
      <AlertTriangle size={16} aria-hidden="true" className="quota-banner__icon" />
      <ul className="quota-banner__list">
        {alerts.map((q) => (
          <li key={q.name}>{sentence(q)}</li>
        ))}
        {budget && <li key="cost_budget">{budgetSentence(budget)}</li>}
      </ul>
    </div>
  );
}
