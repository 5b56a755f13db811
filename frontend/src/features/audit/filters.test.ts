import { describe, expect, it } from "vitest";
import { filtersFromSearch, fromLocalInput, searchFromFilters, toLocalInput } from "./filters";

describe("audit filters in the URL", () => {
  it("reads only known, non-empty filters and writes them back in a stable order", () => {
    const filters = filtersFromSearch(new URLSearchParams("outcome=denied&x=1&actor=&action=agent.create"));
    expect(filters).toEqual({ outcome: "denied", action: "agent.create" });
    expect(searchFromFilters(filters).toString()).toBe("action=agent.create&outcome=denied");
  });

  it("turns a local date-time input into an instant and back", () => {
    const iso = fromLocalInput("2026-03-04T05:06");
    expect(iso).toMatch(/^2026-03-0\dT\d\d:\d\d:00\.000Z$/);
    expect(toLocalInput(iso)).toBe("2026-03-04T05:06");
    expect(fromLocalInput("")).toBe("");
    expect(toLocalInput("not a date")).toBe("");
  });
});
