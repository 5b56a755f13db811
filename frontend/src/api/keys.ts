// The query keys of what more than one feature reads (the sandboxes and the
// provider catalogue, agents and their tools, tokens), so that a feature's
// writes invalidate what the others show.
export const sandboxKeys = {
  all: ["sandboxes"] as const,
  list: () => [...sandboxKeys.all, "list"] as const,
  detail: (id: string) => [...sandboxKeys.all, "detail", id] as const,
  pool: (id: string) => [...sandboxKeys.all, "pool", id] as const,
  secretHint: (id: string) => [...sandboxKeys.all, "secret-hint", id] as const,
  agents: (id: string) => [...sandboxKeys.all, "agents", id] as const,
  instances: (id: string) => [...sandboxKeys.all, "instances", id] as const,
  /** The workspace's live instances, across its sandboxes, as filtered. */
  workspaceInstances: (filters?: object) => [...sandboxKeys.all, "workspace-instances", ...(filters ? [filters] : [])] as const,
  audit: (id: string) => [...sandboxKeys.all, "audit", id] as const,
  providers: ["providers"] as const,
};

export const agentKeys = {
  all: ["agents"] as const,
  list: () => [...agentKeys.all, "list"] as const,
  detail: (id: string) => [...agentKeys.all, "detail", id] as const,
};

export const toolKeys = {
  catalogue: ["tools"] as const,
};

export const tokenKeys = {
  all: ["tokens"] as const,
  list: () => [...tokenKeys.all, "list"] as const,
};

export const workspaceKeys = {
  detail: ["workspace"] as const,
};
