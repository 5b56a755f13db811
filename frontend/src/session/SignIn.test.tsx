import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { useSandboxes } from "../api/listSandboxes";
import { fakeApi, problem } from "../test/fakeApi";
import { SessionProvider } from "./SessionProvider";

function SandboxCount() {
  const sandboxes = useSandboxes();
  return <p>{sandboxes.data ? `${sandboxes.data.length} sandboxes` : "Signed in"}</p>;
}

function renderApp(child = <p>Signed in</p>) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={queryClient}>
      <SessionProvider>{child}</SessionProvider>
    </QueryClientProvider>,
  );
}

describe("Sign-in", () => {
  it("shows a refused token's error under the field and keeps nothing", async () => {
    fakeApi({ "GET /api/v1/me": problem(401, "unauthorized", "Send an API token as Authorization: Bearer <token>.") });
    const user = userEvent.setup();
    renderApp();
    const field = screen.getByLabelText("API token");
    await user.type(field, "aux_wrong");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("This token was not accepted. Check it and try again.")).toBeInTheDocument();
    expect(field).toHaveAccessibleDescription(/not accepted/);
    expect(sessionStorage.getItem("auxilia.token")).toBeNull();
  });

  it("keeps an accepted token for this tab and shows the app", async () => {
    const api = fakeApi({
      "GET /api/v1/me": {
        body: { token_id: "t1", name: "bootstrap", role: "admin", workspace: { id: "w1", name: "default" } },
      },
    });
    const user = userEvent.setup();
    renderApp();
    await user.type(screen.getByLabelText("API token"), "aux_good");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("Signed in")).toBeInTheDocument();
    expect(sessionStorage.getItem("auxilia.token")).toBe("aux_good");
    expect(api.calls[0]?.headers.get("Authorization")).toBe("Bearer aux_good");
  });

  it("returns to sign-in, saying why, when the server stops accepting the token", async () => {
    sessionStorage.setItem("auxilia.token", "aux_revoked");
    fakeApi({
      "GET /api/v1/me": { body: { token_id: "t1", name: "ci", role: "member", workspace: { id: "w1", name: "default" } } },
      "GET /api/v1/sandboxes": problem(401, "unauthorized", "Send an API token as Authorization: Bearer <token>."),
    });
    renderApp(<SandboxCount />);
    expect(await screen.findByText("Your token is no longer accepted. Sign in again.")).toBeInTheDocument();
    expect(screen.getByLabelText("API token")).toBeInTheDocument();
    expect(sessionStorage.getItem("auxilia.token")).toBeNull();
  });
});
