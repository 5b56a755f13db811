/** Where a tooltip goes: its top-left corner in the viewport, its side of the anchor, and its arrow's left edge within it. */
export interface Placement {
  x: number;
  y: number;
  side: "top" | "bottom";
  arrowX: number;
}

interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

interface Size {
  width: number;
  height: number;
}

/** Space between the anchor and the tooltip (the arrow's height fits in it). */
export const tooltipGap = 6;
/** The tooltip keeps this far from the viewport's edges. */
const edgePadding = 8;
/** The arrow's width, and the margin it keeps from the tooltip's corners. */
const arrowWidth = 10;
const arrowMargin = 6;

/**
 * Places a tooltip of size tip above anchor, or below it when it does not fit
 * above and fits better below; centred on the anchor but kept inside the
 * viewport, with its arrow still pointing at the anchor's centre.
 */
export function placeTooltip(anchor: Rect, tip: Size, viewport: Size): Placement {
  const roomAbove = anchor.top - edgePadding;
  const roomBelow = viewport.height - (anchor.top + anchor.height) - edgePadding;
  const needed = tip.height + tooltipGap;
  const side = roomAbove >= needed || roomAbove >= roomBelow ? "top" : "bottom";
  const y = side === "top" ? anchor.top - tooltipGap - tip.height : anchor.top + anchor.height + tooltipGap;

  const centre = anchor.left + anchor.width / 2;
  const maxX = Math.max(edgePadding, viewport.width - edgePadding - tip.width);
  const x = Math.min(Math.max(centre - tip.width / 2, edgePadding), maxX);

  const arrowMax = Math.max(arrowMargin, tip.width - arrowMargin - arrowWidth);
  const arrowX = Math.min(Math.max(centre - x - arrowWidth / 2, arrowMargin), arrowMax);
  return { x, y, side, arrowX };
}
