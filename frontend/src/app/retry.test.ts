import { describe, expect, it } from "vitest";
import { createQueryClient } from "./App";
import { ApiError } from "../api/problem";

function retries(error: unknown): boolean {
  const retry = createQueryClient().getDefaultOptions().queries?.retry;
  if (typeof retry !== "function") throw new Error("retry is a function");
  return retry(0, error as Error);
}

const limited = { type: "about:blank", title: "Rate limited", status: 429, detail: "", reason: "rate_limited" };

describe("a query refused for its rate", () => {
  it("asks again after a short Retry-After", () => {
    expect(retries(new ApiError(429, limited, 5))).toBe(true);
  });

  it("shows a provider's hour-long limit at once instead of waiting an hour", () => {
    expect(retries(new ApiError(429, { ...limited, reason: "provider_rate_limited" }, 3600))).toBe(false);
  });

  it("does not ask again for other problems", () => {
    expect(retries(new ApiError(409, { ...limited, status: 409, reason: "conflict" }))).toBe(false);
  });
});
