export const runKeys = {
  threads: (agentId: string) => ["threads", agentId] as const,
  thread: (agentId: string, threadId: string, runId: string) => ["threads", agentId, threadId, runId] as const,
  runs: (agentId: string, threadId: string) => ["threads", agentId, threadId, "runs"] as const,
  startFailures: (agentId: string, threadId: string) => ["threads", agentId, threadId, "start-failures"] as const,
  run: (runId: string) => ["runs", runId] as const,
  directory: (runId: string, path: string) => ["runs", runId, "ls", path] as const,
  file: (runId: string, path: string) => ["runs", runId, "file", path] as const,
};
