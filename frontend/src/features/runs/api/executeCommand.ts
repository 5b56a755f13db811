import { api } from "../../../api/client";
import { ApiError, toProblem } from "../../../api/problem";
import { approvalHeader } from "./approval";
import { SseParser, type ServerSentEvent } from "./sse";
import type { ExecuteExit, ExecuteResult } from "./types";

export type ExecuteEvent =
  | { kind: "stdout"; text: string }
  | { kind: "stderr"; text: string }
  | { kind: "exit"; exit: ExecuteExit };

export interface ExecuteRequest {
  runId: string;
  command: string;
  /** Seconds; the sandbox's own timeout caps it. */
  timeout?: number;
  /** A person approved a tool whose policy needs approval. */
  approved?: boolean;
  signal?: AbortSignal;
  onEvent: (event: ExecuteEvent) => void;
}

/**
 * POST /api/v1/runs/{run_id}/execute with Accept: text/event-stream: the
 * output arrives as it is written (stdout and stderr apart), then the exit.
 * A server that answers with plain JSON instead is read as one chunk.
 */
export async function executeCommand({ runId, command, timeout, approved, signal, onEvent }: ExecuteRequest): Promise<void> {
  const { data: stream, error, response } = await api.POST("/api/v1/runs/{run_id}/execute", {
    params: { path: { run_id: runId }, header: approvalHeader(approved) },
    body: timeout ? { command, timeout } : { command },
    headers: { Accept: "text/event-stream" },
    parseAs: "stream",
    signal,
  });
  if (!response.ok) throw new ApiError(response.status, toProblem(response.status, error, response.statusText));

  if (!response.headers.get("Content-Type")?.includes("text/event-stream") || !stream) {
    const result = (await new Response(stream).json()) as ExecuteResult;
    if (result.output) onEvent({ kind: "stdout", text: result.output });
    onEvent({ kind: "exit", exit: { exit_code: result.exit_code, duration_ms: result.duration_ms, truncated: result.truncated } });
    return;
  }

  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  const deliver = (events: ServerSentEvent[]) => {
    for (const { event, data } of events) {
      if (event === "stdout" || event === "stderr") {
        onEvent({ kind: event, text: (JSON.parse(data) as { text: string }).text });
      } else if (event === "exit") {
        onEvent({ kind: "exit", exit: JSON.parse(data) as ExecuteExit });
      }
    }
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    deliver(parser.push(decoder.decode(value, { stream: true })));
  }
  deliver(parser.push(decoder.decode()));
  deliver(parser.flush());
}
