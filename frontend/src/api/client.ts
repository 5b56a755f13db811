import createClient from "openapi-fetch";
import { tokenStore } from "../shared/tokenStore";
import { takeEarly } from "./early";
import { ApiError, toProblem } from "./problem";
import type { paths } from "./schema.gen";

/** Same origin: the Go server serves both the SPA and the API. */
export const apiBase = globalThis.location?.origin ?? "";

export const api = createClient<paths>({
  baseUrl: apiBase,
  // Looked up at call time so tests can stand in for fetch.
  fetch: (request) => takeEarly(request) ?? globalThis.fetch(request),
});

api.use({
  onRequest({ request }) {
    const token = tokenStore.get();
    if (token && !request.headers.has("Authorization")) {
      request.headers.set("Authorization", `Bearer ${token}`);
    }
    const csrf = tokenStore.csrf();
    if (!request.headers.has("Authorization") && csrf) {
      request.headers.set("X-CSRF-Token", csrf);
    }
    return request;
  },
  onResponse({ request, response }) {
    // A token revoked (or expired) while signed in ends the session; the
    // sign-in screen then explains why.
    if (response.status === 401 && request.headers.get("Authorization") === `Bearer ${tokenStore.get()}`) {
      tokenStore.clear("Your token is no longer accepted. Sign in again.");
    } else if (response.status === 401 && !request.headers.has("Authorization") && tokenStore.csrf()) {
      tokenStore.clear("Your session has ended. Sign in again.");
    }
    return response;
  },
});

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; otherwise throws its problem as an ApiError. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const retryAfter = Number(response.headers.get("Retry-After"));
    throw new ApiError(
      response.status,
      toProblem(response.status, error, response.statusText),
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
  return data as T;
}

/** Like unwrap, keeping the ETag that later writes send back as If-Match. */
export async function unwrapWithETag<T>(call: Promise<FetchResult<T>>): Promise<{ data: T; etag: string | null }> {
  const result = await call;
  const data = await unwrap(Promise.resolve(result));
  return { data, etag: result.response.headers.get("ETag") };
}
