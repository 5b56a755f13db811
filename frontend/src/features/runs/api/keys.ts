export const runKeys = {
  threads: (agentId: string) => ["threads", agentId] as const,
  directory: (runId: string, path: string, approved: boolean) => ["runs", runId, "ls", path, { approved }] as const,
  file: (runId: string, path: string, approved: boolean) => ["runs", runId, "file", path, { approved }] as const,
};
