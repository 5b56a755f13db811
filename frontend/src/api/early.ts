// index.html's inline script asks for what a signed-in first screen needs
// (who the token is, the screen's data) before the app's code has arrived;
// the API client takes those answers here instead of asking again.

/** What the inline script leaves on window: the token it used, when, and its requests by path and query. */
interface EarlyRequests {
  token: string;
  at: number; // Date.now() when asked
  responses: Record<string, Promise<Response> | undefined>;
}

declare global {
  interface Window {
    auxiliaEarly?: EarlyRequests;
  }
}

/** Early answers are for the first screen only: after this long a request asks again. */
const earlyForMs = 10_000;

/**
 * The early answer to request, handed over once: a GET of the same path and
 * query with the same token, while the page is new.
 */
export function takeEarly(request: Request): Promise<Response> | undefined {
  const early = globalThis.window?.auxiliaEarly;
  if (!early || request.method !== "GET" || Date.now() - early.at > earlyForMs) return undefined;
  const url = new URL(request.url);
  const key = url.pathname + url.search;
  const response = early.responses[key];
  if (!response || url.origin !== window.location.origin || request.headers.get("Authorization") !== `Bearer ${early.token}`) {
    return undefined;
  }
  delete early.responses[key];
  return response;
}
