import { describe, expect, it } from "vitest";
import type { UsageRow } from "./api/getUsage";
import { stackByDay, top } from "./series";

function row(day: string, key: string, name: string, hours: number): UsageRow {
  return {
    period_start: `${day}T00:00:00Z`,
    period_end: `${day}T00:00:00Z`,
    key,
    name,
    running_seconds: hours * 3600,
    paused_seconds: 0,
    instances_created: 1,
    instances_failed: 0,
    instances_replaced: 0,
    commands: 2,
    command_seconds: 1.5,
    terminal_seconds: 60,
    kept_byte_days: 1024 ** 3 / 2,
    estimated_cost: null,
  };
}

describe("stackByDay", () => {
  it("gives every day of the span, each with its hours by group, biggest group first", () => {
    const rows = [row("2026-03-02", "a", "Alpha", 1), row("2026-03-02", "b", "Beta", 3), row("2026-03-03", "a", "Alpha", 1)];
    const { days, series } = stackByDay(rows, "2026-03-01T00:00:00Z", "2026-03-04T00:00:00Z");
    expect(days.map((d) => d.day)).toEqual(["2026-03-01", "2026-03-02", "2026-03-03"]);
    expect(days[1]).toEqual({
      day: "2026-03-02",
      hours: { a: 1, b: 3 },
      total: 4,
      commands: 4,
      commandSeconds: 3,
      terminalSeconds: 120,
      keptGiBDays: 1,
    });
    expect(series).toEqual([
      { key: "b", name: "Beta" },
      { key: "a", name: "Alpha" },
    ]);
  });
});

describe("top", () => {
  it("sums each group over the span and keeps the biggest", () => {
    const rows = [row("2026-03-02", "a", "Alpha", 1), row("2026-03-03", "a", "Alpha", 2), row("2026-03-02", "b", "Beta", 2.5)];
    expect(top(rows, 1)).toEqual([{ key: "a", name: "Alpha", hours: 3, created: 2 }]);
  });
});
