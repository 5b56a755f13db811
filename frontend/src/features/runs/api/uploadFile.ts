import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { approvalHeader } from "./approval";

export interface UploadRequest {
  runId: string;
  /** Where the file goes in the sandbox; an existing file is refused (409 file_exists). */
  path: string;
  file: Blob;
  /** A person approved the upload (the write_file tool needs approval). */
  approved?: boolean;
  /** Replace the file if it exists: always needs a person's approval. */
  overwrite?: boolean;
}

/** PUT /api/v1/runs/{run_id}/files: the body's bytes are the file. */
export async function uploadFile({ runId, path, file, approved, overwrite }: UploadRequest): Promise<void> {
  await unwrap(
    api.PUT("/api/v1/runs/{run_id}/files", {
      params: {
        path: { run_id: runId },
        query: overwrite ? { path, overwrite: true } : { path },
        header: approvalHeader(approved),
      },
      // The spec calls an octet-stream body a string; the bytes go as they are.
      body: file as unknown as string,
      bodySerializer: (body) => body,
      headers: { "Content-Type": "application/octet-stream" },
    }),
  );
}

export function useUploadFile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: uploadFile,
    onSuccess: (_r, { runId }) => queryClient.invalidateQueries({ queryKey: ["runs", runId, "ls"] }),
  });
}
