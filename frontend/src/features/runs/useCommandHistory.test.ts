import { renderHook } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { useCommandHistory } from "./useCommandHistory";

describe("command history", () => {
  it("goes back through earlier commands and forward to what was being typed", () => {
    const { result } = renderHook(() => useCommandHistory());
    const history = result.current;
    history.record("ls");
    history.record("pwd");
    expect(history.back("ech")).toBe("pwd");
    expect(history.back("pwd")).toBe("ls");
    expect(history.back("ls")).toBeNull();
    expect(history.forward()).toBe("pwd");
    expect(history.forward()).toBe("ech");
    expect(history.forward()).toBeNull();
  });
});
