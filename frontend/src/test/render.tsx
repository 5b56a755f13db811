import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { createMemoryRouter, RouterProvider } from "react-router-dom";
import type { Me } from "../api/types";
import { SessionContext } from "../session/SessionContext";
import providersFixture from "./providers.fixture.json";
import toolsFixture from "./tools.fixture.json";

export const providers = providersFixture.items;
/** The tool catalogue as the server serves it (kept in step by the api package's tests). */
export const tools = toolsFixture.items;

export const adminMe: Me = {
  token_id: "00000000-0000-0000-0000-000000000001",
  name: "bootstrap",
  role: "admin",
  workspace: { id: "00000000-0000-0000-0000-0000000000aa", name: "default" },
  user: null,
};

/** Renders a screen as a signed-in admin would see it, with a fresh query cache. */
export function renderSignedIn(ui: ReactElement, { me = adminMe, route = "/" }: { me?: Me; route?: string } = {}) {
  sessionStorage.setItem("auxilia.token", "aux_test_token");
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  // A data router, as the app has: a form's navigation blocker works under it.
  const router = createMemoryRouter(
    [
      {
        path: "*",
        element: (
          <SessionContext.Provider value={{ me, isAdmin: me.role === "admin", signOut: () => {} }}>{ui}</SessionContext.Provider>
        ),
      },
    ],
    { initialEntries: [route] },
  );
  return render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}
