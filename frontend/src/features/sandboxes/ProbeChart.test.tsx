import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { niceCeiling, ProbeChart } from "./ProbeChart";

describe("ProbeChart", () => {
  it("labels its axes and lists each failure with its reason and the provider's words", () => {
    render(
      <ProbeChart
        history={[
          { at: "2026-01-01T10:00:00Z", ok: true, latency_ms: 12, reason: "", detail: "" },
          { at: "2026-01-01T10:05:00Z", ok: false, latency_ms: 10000, reason: "network", detail: "no answer within 10s" },
          { at: "2026-01-01T10:10:00Z", ok: true, latency_ms: 30, reason: "", detail: "" },
        ]}
      />,
    );
    expect(screen.getByText("latency (ms)")).toBeTruthy();
    expect(screen.getByRole("img").getAttribute("aria-label")).toMatch(/3 probes from .* 2 answered \(12–30 ms\), 1 failed/);
    const failures = screen.getByRole("table", { name: "Failed probes" });
    const row = within(failures).getAllByRole("row")[1]!;
    expect(row.textContent).toContain("Network");
    expect(row.textContent).toContain("no answer within 10s");
    // The axis goes to a round number above the slowest answer, not to the failure's timeout.
    expect(screen.getByText("50")).toBeTruthy();
  });

  it("says when there are no probes yet", () => {
    render(<ProbeChart history={[]} />);
    expect(screen.getByText(/No probes yet/)).toBeTruthy();
  });

  it("rounds the axis up to 1, 2 or 5 times a power of ten", () => {
    expect([niceCeiling(1), niceCeiling(12), niceCeiling(30), niceCeiling(260), niceCeiling(700)]).toEqual([1, 20, 50, 500, 1000]);
  });
});
