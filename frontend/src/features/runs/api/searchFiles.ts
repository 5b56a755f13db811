import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";

export type SearchMode = "names" | "text";

export interface SearchHit {
  path: string;
  /** The matching line, for a search of text. */
  line?: number;
  text?: string;
}

export interface SearchAnswer {
  hits: SearchHit[];
  truncated: boolean;
}

export interface SearchRequest {
  runId: string;
  mode: SearchMode;
  query: string;
  /** The folder to search; the working directory when empty. */
  dir: string;
}

/**
 * A name is looked for in every folder below: without a wildcard, as any
 * part of a name; a pattern that names no folder (*.py) matches in any.
 */
export function namePattern(query: string): string {
  if (!/[*?]/.test(query)) return `**/*${query}*`;
  return query.includes("/") ? query : `**/${query}`;
}

/** GET …/glob (file names) or …/grep (text in files) under a folder. */
export async function searchFiles({ runId, mode, query, dir }: SearchRequest): Promise<SearchAnswer> {
  const path = { run_id: runId };
  const where = dir ? { path: dir } : {};
  if (mode === "names") {
    const found = await unwrap(
      api.GET("/api/v1/runs/{run_id}/glob", { params: { path, query: { pattern: namePattern(query), ...where } } }),
    );
    return { hits: found.paths.map((p) => ({ path: p })), truncated: found.truncated };
  }
  const found = await unwrap(api.GET("/api/v1/runs/{run_id}/grep", { params: { path, query: { pattern: query, ...where } } }));
  return { hits: found.matches.map((m) => ({ path: m.path, line: m.line, text: m.text })), truncated: found.truncated };
}

export function useSearchFiles() {
  return useMutation({ mutationFn: searchFiles });
}
