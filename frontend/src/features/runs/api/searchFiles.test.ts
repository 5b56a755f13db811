import { describe, expect, it } from "vitest";
import { changedLines } from "./editFile";
import { namePattern } from "./searchFiles";

describe("file search and edit helpers", () => {
  it("looks for a name in every folder below", () => {
    expect(namePattern("report")).toBe("**/*report*");
    expect(namePattern("*.py")).toBe("**/*.py");
    expect(namePattern("src/*.py")).toBe("src/*.py");
  });

  it("shows only the changed block of lines", () => {
    expect(changedLines("a\nb\nc\n", "a\nB\nc\n")).toEqual({ kept: 3, removed: ["b"], added: ["B"] });
    expect(changedLines("a\n", "a\nnew\n")).toEqual({ kept: 2, removed: [], added: ["new"] });
  });
});
