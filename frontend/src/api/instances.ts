import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import { sandboxKeys } from "./keys";
import type { SandboxInstance } from "./types";

/** GET /api/v1/sandboxes/{id}/instances (admin): its instances being created, live or paused. */
export async function listSandboxInstances(id: string): Promise<SandboxInstance[]> {
  const { items } = await unwrap(
    api.GET("/api/v1/sandboxes/{id}/instances", { params: { path: { id }, query: { page_size: 200 } } }),
  );
  return items;
}

/** The sandbox's live instances, read again every 15 s while the page is open. */
export function useSandboxInstances(id: string, enabled: boolean) {
  return useQuery({
    queryKey: sandboxKeys.instances(id),
    queryFn: () => listSandboxInstances(id),
    enabled,
    refetchInterval: 15_000,
  });
}

export interface InstanceFilters {
  sandbox_id?: string;
  agent_id?: string;
  state?: SandboxInstance["state"];
}

/** GET /api/v1/instances (admin): the workspace's instances being created, live or paused, as filtered. */
export async function listInstances(filters: InstanceFilters): Promise<SandboxInstance[]> {
  const query = Object.fromEntries(Object.entries(filters).filter(([, v]) => v)) as InstanceFilters;
  const { items } = await unwrap(api.GET("/api/v1/instances", { params: { query: { ...query, page_size: 200 } } }));
  return items;
}

/** The workspace's live instances, read again every 15 s while shown. */
export function useInstances(filters: InstanceFilters) {
  return useQuery({
    queryKey: sandboxKeys.workspaceInstances(filters),
    queryFn: () => listInstances(filters),
    refetchInterval: 15_000,
  });
}

export type InstanceAction = "pause" | "resume" | "destroy";

export interface InstanceActionRequest {
  sandboxId: string;
  instanceId: string;
  action: InstanceAction;
}

/** POST …/pause, POST …/resume or DELETE /api/v1/sandboxes/{id}/instances/{instance_id}. */
export async function actOnInstance({ sandboxId, instanceId, action }: InstanceActionRequest): Promise<void> {
  const params = { path: { id: sandboxId, instance_id: instanceId } };
  if (action === "destroy") {
    await unwrap(api.DELETE("/api/v1/sandboxes/{id}/instances/{instance_id}", { params }));
  } else if (action === "pause") {
    await unwrap(api.POST("/api/v1/sandboxes/{id}/instances/{instance_id}/pause", { params }));
  } else {
    await unwrap(api.POST("/api/v1/sandboxes/{id}/instances/{instance_id}/resume", { params }));
  }
}

export function useInstanceAction() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: actOnInstance,
    // Whatever the answer, the list says what the instance is now; the audit shows the action.
    onSettled: (_data, _error, { sandboxId }) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: sandboxKeys.instances(sandboxId) }),
        queryClient.invalidateQueries({ queryKey: sandboxKeys.workspaceInstances() }),
        queryClient.invalidateQueries({ queryKey: sandboxKeys.list() }),
        queryClient.invalidateQueries({ queryKey: sandboxKeys.audit(sandboxId) }),
        queryClient.invalidateQueries({ queryKey: ["audit"] }),
      ]),
  });
}
