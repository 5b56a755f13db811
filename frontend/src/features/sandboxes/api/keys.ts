export const sandboxKeys = {
  all: ["sandboxes"] as const,
  list: () => [...sandboxKeys.all, "list"] as const,
  detail: (id: string) => [...sandboxKeys.all, "detail", id] as const,
  pool: (id: string) => [...sandboxKeys.all, "pool", id] as const,
  secretHint: (id: string) => [...sandboxKeys.all, "secret-hint", id] as const,
  agents: (id: string) => [...sandboxKeys.all, "agents", id] as const,
  providers: ["providers"] as const,
};
