import type { UsageRow } from "./api/getUsage";

export interface Series {
  key: string;
  name: string;
}

export interface DayStack {
  day: string; // YYYY-MM-DD (UTC)
  hours: Record<string, number>; // instance-hours (running + paused) by series key
  total: number;
  commands: number;
  commandSeconds: number;
  terminalSeconds: number;
  keptGiBDays: number;
}

const bytesPerGiB = 1024 ** 3;

/** Whether the day used anything: instances, commands, terminals or kept files. */
export function usedAnything(d: DayStack): boolean {
  return d.total > 0 || d.commands > 0 || d.terminalSeconds > 0 || d.keptGiBDays > 0;
}

/** Instance-hours (running and paused) of a row. */
export function hoursOf(row: UsageRow): number {
  return (row.running_seconds + row.paused_seconds) / 3600;
}

/** The days from `from` to `to` (UTC), each with its hours by group, and the groups biggest first. */
export function stackByDay(rows: UsageRow[], from: string, to: string): { days: DayStack[]; series: Series[] } {
  const days: DayStack[] = [];
  const index = new Map<string, DayStack>();
  for (let d = new Date(from.slice(0, 10) + "T00:00:00Z"); d < new Date(to); d.setUTCDate(d.getUTCDate() + 1)) {
    const day = d.toISOString().slice(0, 10);
    const stack = { day, hours: {}, total: 0, commands: 0, commandSeconds: 0, terminalSeconds: 0, keptGiBDays: 0 };
    days.push(stack);
    index.set(day, stack);
  }
  const totals = new Map<string, { series: Series; hours: number }>();
  for (const row of rows) {
    const stack = index.get(row.period_start.slice(0, 10));
    if (!stack) continue;
    const h = hoursOf(row);
    stack.hours[row.key] = (stack.hours[row.key] ?? 0) + h;
    stack.total += h;
    stack.commands += row.commands;
    stack.commandSeconds += row.command_seconds;
    stack.terminalSeconds += row.terminal_seconds;
    stack.keptGiBDays += row.kept_byte_days / bytesPerGiB;
    const t = totals.get(row.key) ?? { series: { key: row.key, name: row.name || "Workspace" }, hours: 0 };
    t.hours += h;
    totals.set(row.key, t);
  }
  const series = [...totals.values()].sort((a, b) => b.hours - a.hours).map((t) => t.series);
  return { days, series };
}

/** The groups of rows by hours over the whole span, biggest first, at most n. */
export function top(rows: UsageRow[], n: number): { key: string; name: string; hours: number; created: number }[] {
  const totals = new Map<string, { key: string; name: string; hours: number; created: number }>();
  for (const row of rows) {
    const t = totals.get(row.key) ?? { key: row.key, name: row.name, hours: 0, created: 0 };
    t.hours += hoursOf(row);
    t.created += row.instances_created;
    totals.set(row.key, t);
  }
  return [...totals.values()].sort((a, b) => b.hours - a.hours).slice(0, n);
}

/** A number of hours as people read it: 2 decimals under 10, 1 under 100, else whole. */
export function formatHours(h: number): string {
  if (h < 10) return h.toFixed(2);
  if (h < 100) return h.toFixed(1);
  return Math.round(h).toString();
}
