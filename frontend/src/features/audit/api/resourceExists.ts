import { useQuery } from "@tanstack/react-query";
import { api } from "../../../api/client";
import { auditKeys } from "./keys";

/** Where each kind of resource is shown in the app, and how to ask whether it still exists. */
const resources: Record<string, { href: (id: string) => string; exists: (id: string) => Promise<boolean> }> = {
  agent: { href: (id) => `/agents/${id}`, exists: agentExists },
  binding: { href: (id) => `/agents/${id}`, exists: agentExists }, // a binding's id is its agent's
  sandbox: {
    href: (id) => `/sandboxes/${id}`,
    exists: async (id) => found(await api.GET("/api/v1/sandboxes/{id}", { params: { path: { id } } })),
  },
  token: {
    href: () => "/settings/tokens",
    exists: async (id) => {
      let pageToken = "";
      do {
        const { data } = await api.GET("/api/v1/tokens", {
          params: { query: { page_size: 200, ...(pageToken ? { page_token: pageToken } : {}) } },
        });
        if (!data) return false;
        if (data.items.some((t) => t.id === id)) return true;
        pageToken = data.next_page_token;
      } while (pageToken);
      return false;
    },
  },
};

async function agentExists(id: string) {
  return found(await api.GET("/api/v1/agents/{id}", { params: { path: { id } } }));
}

function found({ response }: { response: Response }) {
  if (response.ok) return true;
  if (response.status === 404) return false;
  throw new Error(`The server answered ${response.status}.`);
}

/** Whether the app has a screen for this kind of resource. */
export function hasScreen(type: string) {
  return type in resources;
}

/** The address of the resource when it still exists; null when it is gone. */
export function useResourceLink(type: string, id: string, enabled: boolean) {
  const resource = resources[type];
  return useQuery({
    queryKey: [...auditKeys.all, "exists", type, id],
    queryFn: async () => ((await resource!.exists(id)) ? resource!.href(id) : null),
    enabled: enabled && resource !== undefined && id !== "",
    staleTime: 30_000,
  });
}
