import { describe, expect, it } from "vitest";
import { emojiPrefix, hasGlyph } from "./emojiGlyph";

/** A canvas whose font draws the given characters as themselves and every other one as the same box. */
function canvasWithGlyphs(glyphs: string[]) {
  let image = new Uint8ClampedArray(24 * 24 * 4);
  const ctx = {
    textBaseline: "",
    font: "",
    clearRect: () => (image = new Uint8ClampedArray(24 * 24 * 4)),
    fillText: (text: string) => {
      const seed = glyphs.includes(text) ? text.codePointAt(0)! : 7; // 7: the box
      for (let i = 0; i < image.length; i += 4) image.set([seed % 251, seed % 13, 0, 255], i);
    },
    getImageData: () => ({ data: image }),
  };
  return () => ({ getContext: () => ctx }) as unknown as HTMLCanvasElement;
}

describe("hasGlyph", () => {
  it("tells an emoji the font draws from one it draws as its empty box", () => {
    const canvas = canvasWithGlyphs(["🦊"]);
    expect(hasGlyph("🦊", canvas)).toBe(true);
    expect(hasGlyph("🐙", canvas)).toBe(false);
  });

  it("takes an emoji as shown where there is no canvas to ask", () => {
    expect(hasGlyph("🐝", () => null)).toBe(true);
    expect(emojiPrefix("🐝")).toBe("🐝 ");
    expect(emojiPrefix("")).toBe("");
  });
});
