import type { FieldError, Problem } from "./types";

/** An answer of the API that is not a success, read as its problem document. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  /** From Retry-After, when the server says when to ask again (429). */
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, problem: Problem, retryAfterSeconds?: number) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  get reason(): string {
    return this.problem.reason;
  }

  get fieldErrors(): FieldError[] {
    return this.problem.errors ?? [];
  }
}

/** Turns whatever an error body is into a problem, even when it is not problem+json. */
export function toProblem(status: number, body: unknown, statusText = ""): Problem {
  if (body && typeof body === "object" && "reason" in body) return body as Problem;
  const detail = typeof body === "string" && body.trim() ? body.trim() : statusText || `The server answered ${status}.`;
  return { type: "about:blank", title: statusText || "Error", status, detail, reason: "http_" + status };
}

/** The line to show a person for any error the UI meets. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.problem.detail || error.problem.title;
  if (error instanceof TypeError) return "Could not reach the server. Check your connection and try again.";
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}

export function isApiError(error: unknown, reason?: string): error is ApiError {
  return error instanceof ApiError && (reason === undefined || error.reason === reason);
}
