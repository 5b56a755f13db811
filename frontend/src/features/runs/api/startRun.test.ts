import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../../api/problem";
import { startRun } from "./startRun";
import type { RunStartStep } from "./types";

/** Answers the start with a stream cut into the given chunks. */
function streamAnswer(chunks: string[]) {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
      controller.close();
    },
  });
  vi.stubGlobal("fetch", vi.fn(async () => new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } })));
}

afterEach(() => vi.unstubAllGlobals());

describe("startRun", () => {
  it("asks for the stream, hands on each step and pip's output, and resolves with the run", async () => {
    streamAnswer([
      'event: step\ndata: {"step":"creating","detail":"Creating an instance at local."}\n\nevent: out',
      'put\ndata: {"text":"Requirement already satisfied: pip\\n"}\n\n: keepalive\n\n',
      'event: run\ndata: {"id":"r1","status":"active"}\n\n',
    ]);
    const steps: RunStartStep[] = [];
    let output = "";
    const run = await startRun({ agentId: "a1", threadId: "t", onStep: (s) => steps.push(s), onOutput: (t) => (output += t) });
    expect(run).toMatchObject({ id: "r1", status: "active" });
    expect(steps).toEqual([{ step: "creating", detail: "Creating an instance at local." }]);
    expect(output).toBe("Requirement already satisfied: pip\n");
    const request = vi.mocked(fetch).mock.calls[0]?.[0] as Request;
    expect(request.headers.get("Accept")).toBe("text/event-stream");
  });

  it("throws the problem an error event carries", async () => {
    streamAnswer([
      'event: step\ndata: {"step":"probing","detail":"Checking."}\n\n',
      'event: error\ndata: {"status":409,"reason":"sandbox_unavailable","title":"Sandbox unavailable","detail":"Sandbox \'Box\' is not available: refused"}\n\n',
    ]);
    const failure = await startRun({ agentId: "a1", threadId: "t" }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).problem.detail).toBe("Sandbox 'Box' is not available: refused");
    expect((failure as ApiError).status).toBe(409);
  });
});
