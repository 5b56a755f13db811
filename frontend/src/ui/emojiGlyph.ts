// Whether this browser has a glyph for an emoji. A host without an emoji
// font draws each one as the same empty box (the font's "no glyph" mark), so
// an emoji is drawn beside a character no font has, and counted as missing
// when both come out alike.

const side = 24;
const noGlyph = "\u{10FFFD}"; // a private-use character, in no font
const drawn = new Map<string, boolean>();

function pixels(ctx: CanvasRenderingContext2D, text: string): Uint8ClampedArray {
  ctx.clearRect(0, 0, side, side);
  ctx.fillText(text, 0, 0);
  return ctx.getImageData(0, 0, side, side).data;
}

function sameImage(a: Uint8ClampedArray, b: Uint8ClampedArray): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function blank(a: Uint8ClampedArray): boolean {
  for (let i = 3; i < a.length; i += 4) if (a[i] !== 0) return false;
  return true;
}

/**
 * Whether emoji shows as itself here. Where the browser cannot say (no
 * canvas, as in tests without one), it is taken as shown.
 */
export function hasGlyph(emoji: string, canvas: () => HTMLCanvasElement | null = defaultCanvas): boolean {
  const known = drawn.get(emoji);
  if (known !== undefined) return known;
  const ctx = canvas()?.getContext("2d", { willReadFrequently: true }) ?? null;
  if (!ctx) return true;
  ctx.textBaseline = "top";
  ctx.font = `${side - 4}px sans-serif`;
  const image = pixels(ctx, emoji);
  const shown = !blank(image) && !sameImage(image, pixels(ctx, noGlyph));
  drawn.set(emoji, shown);
  return shown;
}

function defaultCanvas(): HTMLCanvasElement | null {
  if (typeof document === "undefined") return null;
  const c = document.createElement("canvas");
  c.width = side;
  c.height = side;
  return c;
}

/** An emoji and a space to put before a name in plain text, or nothing where it would show as a box. */
export function emojiPrefix(emoji: string | undefined): string {
  return emoji && hasGlyph(emoji) ? `${emoji} ` : "";
}
