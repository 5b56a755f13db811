import { describe, expect, it } from "vitest";
import { SseParser } from "./sse";

describe("SseParser", () => {
  it("yields events as their blank line arrives, across chunk boundaries", () => {
    const parser = new SseParser();
    expect(parser.push('event: stdout\ndata: {"text":"hel')).toEqual([]);
    expect(parser.push('lo\\n"}\n\nevent: stderr\r\ndata: {"text":"oops"}\r\n\r\n: keep-alive\n\n')).toEqual([
      { event: "stdout", data: '{"text":"hello\\n"}' },
      { event: "stderr", data: '{"text":"oops"}' },
    ]);
    expect(parser.push('event: exit\ndata: {"exit_code":0,"duration_ms":5,"truncated":false}')).toEqual([]);
    expect(parser.flush()).toEqual([{ event: "exit", data: '{"exit_code":0,"duration_ms":5,"truncated":false}' }]);
  });
});
