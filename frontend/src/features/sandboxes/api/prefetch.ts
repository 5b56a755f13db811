import type { QueryClient } from "@tanstack/react-query";
import { sandboxKeys } from "../../../api/keys";
import { listProviders } from "../../../api/listProviders";
import { listSandboxes } from "../../../api/listSandboxes";

/**
 * Starts the Sandboxes screen's requests while its code is still loading, so
 * the list waits on the slower of the two, not on both in a row. Settles
 * when both have (prefetches never fail: the screen shows their errors).
 */
export async function prefetchSandboxes(queryClient: QueryClient): Promise<void> {
  await Promise.all([
    queryClient.prefetchQuery({ queryKey: sandboxKeys.list(), queryFn: listSandboxes }),
    queryClient.prefetchQuery({ queryKey: sandboxKeys.providers, queryFn: listProviders, staleTime: 5 * 60_000 }),
  ]);
}
