/**
 * Compiled by `npm run lint` (tsc), never run: the generated types must let a
 * sandbox's config narrow on its provider, in answers and in create bodies.
 * Were config a loose union, the `@ts-expect-error` lines would compile and
 * tsc would fail on the unused directives.
 */
import type { Sandbox, SandboxCreate } from "./types";

export function processesOf(sandbox: Sandbox): number | undefined {
  if (sandbox.provider === "local") return sandbox.config.max_processes;
  // @ts-expect-error only a local sandbox's config has max_processes
  return sandbox.config.max_processes;
}

export function imageOf(body: SandboxCreate): string | undefined {
  switch (body.provider) {
    case "opensandbox":
      return body.config?.default_image;
    case "local":
      // @ts-expect-error a local sandbox takes no image
      return body.config?.default_image;
    default:
      return undefined;
  }
}
