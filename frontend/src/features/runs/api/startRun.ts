import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../../api/client";
import { ApiError, toProblem } from "../../../api/problem";
import { runKeys } from "./keys";
import { SseParser } from "./sse";
import type { Run, RunStartStep } from "./types";

export interface StartRunRequest {
  agentId: string;
  threadId: string;
  /** Each step as it begins: probing, creating, installing… */
  onStep?: (step: RunStartStep) => void;
  /** pip's output while the default packages install. */
  onOutput?: (text: string) => void;
}

/**
 * POST /api/v1/agents/{id}/threads/{thread_id}/runs with Accept:
 * text/event-stream: the steps arrive as they begin, then the run (or the
 * problem). A plain JSON answer (a replay, or a failure before the first
 * step) is read as such.
 */
export async function startRun({ agentId, threadId, onStep, onOutput }: StartRunRequest): Promise<Run> {
  const { data: stream, error, response } = await api.POST("/api/v1/agents/{id}/threads/{thread_id}/runs", {
    params: { path: { id: agentId, thread_id: threadId } },
    headers: { Accept: "text/event-stream" },
    parseAs: "stream",
  });
  if (!response.ok) throw new ApiError(response.status, toProblem(response.status, error, response.statusText));
  if (!response.headers.get("Content-Type")?.includes("text/event-stream") || !stream) {
    return (await new Response(stream).json()) as Run;
  }

  const parser = new SseParser();
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  let run: Run | undefined;
  let problem: ApiError | undefined;
  const deliver = (chunk: string, end = false) => {
    const events = parser.push(chunk);
    if (end) events.push(...parser.flush());
    for (const { event, data } of events) {
      const body = JSON.parse(data) as unknown;
      if (event === "step") onStep?.(body as RunStartStep);
      else if (event === "output") onOutput?.((body as { text: string }).text);
      else if (event === "run") run = body as Run;
      else if (event === "error") {
        const status = (body as { status?: number }).status ?? 500;
        problem = new ApiError(status, toProblem(status, body));
      }
    }
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    deliver(decoder.decode(value, { stream: true }));
  }
  deliver(decoder.decode(), true);
  if (problem) throw problem;
  if (!run) throw new ApiError(502, toProblem(502, undefined, "The run start ended without its run: start it again."));
  return run;
}

export function useStartRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: startRun,
    onSuccess: (run) => queryClient.invalidateQueries({ queryKey: runKeys.threads(run.agent_id) }),
  });
}
