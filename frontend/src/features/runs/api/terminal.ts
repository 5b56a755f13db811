import { api, apiBase, unwrap } from "../../../api/client";
import { approvalHeader } from "./approval";

export interface TermSize {
  cols: number;
  rows: number;
}

/** What the server says in a text frame when the terminal ends. */
export type TerminalControl = { type: "exit"; code: number } | { type: "error"; message: string };

/**
 * POST /api/v1/runs/{run_id}/terminal-tickets: a single-use ticket, valid
 * for seconds, that opens the run's terminal (a browser cannot set headers
 * on a WebSocket). With approved, a person approved the terminal for a run
 * whose execute tool needs approval.
 */
export async function createTerminalTicket(runId: string, approved: boolean): Promise<string> {
  const { ticket } = await unwrap(
    api.POST("/api/v1/runs/{run_id}/terminal-tickets", {
      params: { path: { run_id: runId }, header: approvalHeader(approved) },
    }),
  );
  return ticket;
}

/** The WebSocket address of the run's terminal, on the API's origin, opened with a ticket at a size. */
export function terminalSocketUrl(runId: string, ticket: string, size: TermSize): string {
  const url = new URL(`/api/v1/runs/${encodeURIComponent(runId)}/terminal`, apiBase);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.search = new URLSearchParams({ ticket, cols: String(size.cols), rows: String(size.rows) }).toString();
  return url.toString();
}

/** The text frame that tells the terminal its new size. */
export function resizeFrame(size: TermSize): string {
  return JSON.stringify({ type: "resize", cols: size.cols, rows: size.rows });
}

/** Reads a text frame from the server; null for anything it does not know. */
export function parseControl(text: string): TerminalControl | null {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return null;
  }
  if (!frame || typeof frame !== "object") return null;
  const { type, code, message } = frame as Record<string, unknown>;
  if (type === "exit" && typeof code === "number") return { type, code };
  if (type === "error") return { type, message: typeof message === "string" && message ? message : "The terminal failed." };
  return null;
}
