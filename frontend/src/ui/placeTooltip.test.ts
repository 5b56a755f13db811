import { describe, expect, it } from "vitest";
import { placeTooltip, tooltipGap } from "./placeTooltip";

const viewport = { width: 1000, height: 800 };
const tip = { width: 100, height: 30 };

describe("placeTooltip", () => {
  it("centres the tooltip above its anchor, the arrow at the anchor's centre", () => {
    const anchor = { left: 400, top: 300, width: 40, height: 20 };
    expect(placeTooltip(anchor, tip, viewport)).toEqual({ x: 370, y: 300 - tooltipGap - 30, side: "top", arrowX: 45 });
  });

  it("goes below an anchor at the top of the viewport", () => {
    const anchor = { left: 400, top: 10, width: 40, height: 20 };
    expect(placeTooltip(anchor, tip, viewport)).toMatchObject({ y: 30 + tooltipGap, side: "bottom" });
  });

  it("stays above when there is even less room below", () => {
    const anchor = { left: 400, top: 20, width: 40, height: 770 };
    expect(placeTooltip(anchor, tip, viewport).side).toBe("top");
  });

  it("keeps inside the viewport at its edges, the arrow still pointing at the anchor", () => {
    const left = placeTooltip({ left: 0, top: 300, width: 20, height: 20 }, tip, viewport);
    expect(left.x).toBe(8);
    expect(left.arrowX).toBe(6); // the anchor's centre (10) is left of the tooltip: the arrow keeps its margin
    const right = placeTooltip({ left: 970, top: 300, width: 20, height: 20 }, tip, viewport);
    expect(right.x).toBe(1000 - 8 - 100);
    expect(right.arrowX).toBe(980 - 892 - 5);
  });
});
