import { Terminal } from "@xterm/xterm";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { clipboardKeys } from "./useXterm";

function keydown(init: KeyboardEventInit) {
  return new KeyboardEvent("keydown", { cancelable: true, ...init });
}

describe("terminal keys", { timeout: 30_000 }, () => {
  const term = new Terminal();
  afterEach(() => term.clearSelection());
  afterAll(() => {
    term.dispose();
    vi.unstubAllGlobals();
  });

  it("copies the selection with Ctrl+Shift+C (and Cmd+Shift+C), leaving Ctrl+C to the shell", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    const element = document.createElement("div");
    document.body.append(element);
    term.open(element);
    await new Promise<void>((done) => term.write("hello world", done));
    term.select(6, 0, 5);
    const keys = clipboardKeys(term);

    const copy = keydown({ ctrlKey: true, shiftKey: true, code: "KeyC", key: "C" });
    expect(keys(copy)).toBe(false);
    expect(copy.defaultPrevented).toBe(true);
    expect(writeText).toHaveBeenCalledWith("world");
    expect(keys(keydown({ metaKey: true, shiftKey: true, code: "KeyC", key: "C" }))).toBe(false);
    expect(writeText).toHaveBeenCalledTimes(2);

    expect(keys(keydown({ ctrlKey: true, code: "KeyC", key: "c" }))).toBe(true);
    expect(writeText).toHaveBeenCalledTimes(2);
  });

  it("lets the browser paste on Ctrl+Shift+V, and Shift+Tab move focus out; Tab stays the shell's", () => {
    const keys = clipboardKeys(term);
    const paste = keydown({ ctrlKey: true, shiftKey: true, code: "KeyV", key: "V" });
    expect(keys(paste)).toBe(false);
    // Not prevented: the browser's paste event reaches the terminal.
    expect(paste.defaultPrevented).toBe(false);
    expect(keys(keydown({ shiftKey: true, key: "Tab", code: "Tab" }))).toBe(false);
    expect(keys(keydown({ key: "Tab", code: "Tab" }))).toBe(true);
    expect(keys(new KeyboardEvent("keyup", { ctrlKey: true, shiftKey: true, code: "KeyC" }))).toBe(true);
  });
});
