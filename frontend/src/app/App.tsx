import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState } from "react";
import { createBrowserRouter, RouterProvider } from "react-router-dom";
import { isApiError } from "../api/problem";
import { SessionProvider } from "../session/SessionProvider";
import { ToastProvider } from "../ui/Toasts";
import { AppRoutes } from "./routes";

/** The longest a query waits before asking again, as Retry-After says. */
const maxRetryWaitSeconds = 60;

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        // A problem the server answered with will not go away by asking again,
        // except running out of requests for the minute, which does; one that
        // asks to wait longer than a minute (a provider's rate limit) is shown.
        retry: (count, error) =>
          (isApiError(error)
            ? error.status === 429 && (error.retryAfterSeconds ?? 0) <= maxRetryWaitSeconds
            : true) && count < 2,
        retryDelay: (attempt, error) =>
          isApiError(error) && error.retryAfterSeconds
            ? error.retryAfterSeconds * 1000
            : Math.min(1000 * 2 ** attempt, 10_000),
        refetchOnWindowFocus: false,
      },
    },
  });
}

/**
 * A data router around the app's routes: its navigation blocker keeps a
 * form with unsaved changes from being left unasked (useUnsavedChanges).
 */
function createRouter() {
  return createBrowserRouter([
    {
      path: "*",
      element: (
        <ToastProvider>
          <SessionProvider>
            <AppRoutes />
          </SessionProvider>
        </ToastProvider>
      ),
    },
  ]);
}

export function App({ queryClient }: { queryClient: QueryClient }) {
  const [router] = useState(createRouter);
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
