import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { StartProgress } from "./StartProgress";

const probed = {
  startedAt: 1_000,
  steps: [{ step: { step: "probing" as const, detail: "Checking that Down box (opensandbox) answers." }, at: 100 }],
  output: "",
};

describe("StartProgress", () => {
  it("says a start that failed failed, not that it started", () => {
    render(<StartProgress progress={probed} pending={false} failed />);
    const timer = screen.getByRole("timer");
    expect(timer).toHaveTextContent("Failed after 0.1 s");
    expect(timer).not.toHaveTextContent("Started");
  });

  it("says how long a start that succeeded took", () => {
    render(<StartProgress progress={probed} pending={false} />);
    expect(screen.getByRole("timer")).toHaveTextContent("Started in 0.1 s");
  });
});
