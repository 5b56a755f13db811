import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { approvalHeader } from "./approval";
import { baseName } from "../paths";

export interface DownloadRequest {
  runId: string;
  path: string;
  /** A person approved this one read, where read_file needs it. */
  approved?: boolean;
}

/** GET /api/v1/runs/{run_id}/files/raw: the file's bytes, any content. */
export function downloadFile({ runId, path, approved }: DownloadRequest): Promise<Blob> {
  return unwrap(
    api.GET("/api/v1/runs/{run_id}/files/raw", {
      params: { path: { run_id: runId }, query: { path }, header: approvalHeader(approved) },
      parseAs: "blob",
    }),
  ) as Promise<Blob>;
}

/** Hands bytes to the browser to save under name, as a link with download would. */
export function saveAs(bytes: Blob, name: string) {
  const url = URL.createObjectURL(bytes);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Downloads a file of the run and saves it under its own name. */
export function useDownloadFile() {
  return useMutation({
    mutationFn: downloadFile,
    onSuccess: (bytes, { path }) => saveAs(bytes, baseName(path)),
  });
}
