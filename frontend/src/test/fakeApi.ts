import { vi } from "vitest";

export interface FakeResponse {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
}

type Handler = FakeResponse | ((call: RecordedCall) => FakeResponse | Promise<FakeResponse>);

/**
 * Stands in for the server: answers "METHOD /path" with what the test says
 * and records every call. An unexpected call fails loudly as a 599.
 */
export function fakeApi(routes: Record<string, Handler | Handler[]>) {
  const calls: RecordedCall[] = [];
  const queues = new Map(Object.entries(routes).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]));

  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(request.url);
    const text = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Raw bodies (uploads) stay text.
    }
    const call: RecordedCall = { method: request.method, path: url.pathname, query: url.searchParams, headers: request.headers, body };
    calls.push(call);

    const key = `${request.method} ${url.pathname}`;
    const entry = queues.get(key);
    // A list of answers is used in turn; its last answer repeats.
    const handler = Array.isArray(entry) ? (entry.length > 1 ? entry.shift() : entry[0]) : entry;
    if (!handler) return new Response(JSON.stringify({ detail: `no fake for ${key}` }), { status: 599 });
    const answer = typeof handler === "function" ? await handler(call) : handler;
    const status = answer.status ?? 200;
    const isProblem = status >= 400;
    return new Response(status === 204 || answer.body === undefined ? null : JSON.stringify(answer.body), {
      status,
      headers: { "Content-Type": isProblem ? "application/problem+json" : "application/json", ...answer.headers },
    });
  });
  vi.stubGlobal("fetch", fetch);

  return {
    calls,
    callsTo: (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path),
  };
}

export function problem(status: number, reason: string, detail: string, extra: Record<string, unknown> = {}) {
  return {
    status,
    body: { type: `https://auxilia.dev/problems/${reason}`, title: reason, status, detail, reason, ...extra },
  };
}
