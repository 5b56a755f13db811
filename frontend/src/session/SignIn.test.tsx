import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { useSandboxes } from "../api/listSandboxes";
import { fakeApi, problem } from "../test/fakeApi";
import { useSession } from "./SessionContext";
import { SessionProvider } from "./SessionProvider";

function SignOutButton() {
  const { signOut } = useSession();
  return (
    <button type="button" onClick={signOut}>
      Sign out now
    </button>
  );
}

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
    expect(api.callsTo("GET", "/api/v1/me")[0]?.headers.get("Authorization")).toBe("Bearer aux_good");
  });

  it("offers the identity provider's sign-in when the server has one, beside the token", async () => {
    fakeApi({
      "GET /auth/config": { body: { oidc: true, provider_name: "Acme SSO", login_url: "/auth/oidc/login" } },
    });
    renderApp();
    const link = await screen.findByRole("link", { name: "Sign in with Acme SSO" });
    expect(link).toHaveAttribute("href", "/auth/oidc/login");
    expect(screen.getByLabelText("API token")).toBeInTheDocument();
  });

  it("offers only the token without an identity provider", async () => {
    const api = fakeApi({ "GET /auth/config": { body: { oidc: false, provider_name: "", login_url: "" } } });
    renderApp();
    await vi.waitFor(() => expect(api.callsTo("GET", "/auth/config")).toHaveLength(1));
    expect(screen.queryByRole("link", { name: /Sign in with/ })).toBeNull();
  });

  it("opens a console session by its cookie, sends its CSRF token, and ends it at sign-out", async () => {
    document.cookie = "auxilia_csrf=csrf-value; Path=/";
    const api = fakeApi({
      "GET /api/v1/me": {
        body: {
          token_id: "", name: "ada@example.com", role: "admin", workspace: { id: "w1", name: "default" },
          user: { id: "u1", email: "ada@example.com", name: "Ada" },
        },
      },
      "POST /auth/logout": { status: 204 },
    });
    const user = userEvent.setup();
    renderApp(<SignOutButton />);
    await user.click(await screen.findByRole("button", { name: "Sign out now" }));
    const me = api.callsTo("GET", "/api/v1/me")[0];
    expect(me?.headers.get("Authorization")).toBeNull();
    expect(me?.headers.get("X-CSRF-Token")).toBe("csrf-value");
    await vi.waitFor(() => expect(api.callsTo("POST", "/auth/logout")).toHaveLength(1));
    expect(api.callsTo("POST", "/auth/logout")[0]?.headers.get("X-CSRF-Token")).toBe("csrf-value");
    expect(await screen.findByLabelText("API token")).toBeInTheDocument();
    expect(document.cookie).not.toContain("auxilia_csrf");
  });

  it("returns to sign-in, saying why, when the console session ends", async () => {
    document.cookie = "auxilia_csrf=csrf-value; Path=/";
    fakeApi({ "GET /api/v1/me": problem(401, "unauthorized", "Your session has ended: sign in again.") });
    renderApp();
    expect(await screen.findByText("Your session has ended. Sign in again.")).toBeInTheDocument();
    expect(document.cookie).not.toContain("auxilia_csrf");
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
