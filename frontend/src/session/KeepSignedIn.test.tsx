import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../test/fakeApi";
import { SessionProvider } from "./SessionProvider";
import { tokenStore } from "../shared/tokenStore";

const me = { body: { token_id: "t1", name: "bootstrap", role: "admin", workspace: { id: "w1", name: "default" } } };

function renderApp() {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <p>Signed in</p>
      </SessionProvider>
    </QueryClientProvider>,
  );
}

describe("Keep me signed in on this device", () => {
  it("is off by default: the token stays with this tab", { timeout: 30_000 }, async () => {
    fakeApi({ "GET /api/v1/me": me });
    const user = userEvent.setup();
    renderApp();
    const keep = screen.getByRole("checkbox", { name: "Keep me signed in on this device" });
    expect(keep).not.toBeChecked();
    expect(keep).toHaveAccessibleDescription("Off: the token is kept for this browser tab only.");
    await user.type(screen.getByLabelText("API token"), "aux_tab");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("Signed in")).toBeInTheDocument();
    expect(sessionStorage.getItem("auxilia.token")).toBe("aux_tab");
    expect(localStorage.getItem("auxilia.token")).toBeNull();
  });

  it("when on, keeps the token for every tab of this browser, and sign-out clears it everywhere", { timeout: 30_000 }, async () => {
    fakeApi({ "GET /api/v1/me": me });
    const user = userEvent.setup();
    renderApp();
    await user.click(screen.getByRole("checkbox", { name: "Keep me signed in on this device" }));
    expect(screen.getByRole("checkbox", { name: "Keep me signed in on this device" })).toHaveAccessibleDescription(
      /for every tab, until you sign out/,
    );
    await user.type(screen.getByLabelText("API token"), "aux_device");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("Signed in")).toBeInTheDocument();
    expect(localStorage.getItem("auxilia.token")).toBe("aux_device");
    expect(sessionStorage.getItem("auxilia.token")).toBeNull();

    // A new tab has an empty sessionStorage and the same localStorage: it is signed in.
    sessionStorage.clear();
    expect(tokenStore.get()).toBe("aux_device");

    act(() => tokenStore.clear());
    expect(localStorage.getItem("auxilia.token")).toBeNull();
    expect(sessionStorage.getItem("auxilia.token")).toBeNull();
    expect(await screen.findByRole("button", { name: "Sign in" })).toBeInTheDocument();
  });

  it("follows a sign-out made in another tab", { timeout: 30_000 }, async () => {
    localStorage.setItem("auxilia.token", "aux_device");
    fakeApi({ "GET /api/v1/me": me });
    renderApp();
    expect(await screen.findByText("Signed in")).toBeInTheDocument();
    // The other tab removes the token; this one hears of it through the storage event.
    localStorage.removeItem("auxilia.token");
    act(() => {
      window.dispatchEvent(new StorageEvent("storage", { key: "auxilia.token", oldValue: "aux_device", newValue: null }));
    });
    expect(await screen.findByRole("button", { name: "Sign in" })).toBeInTheDocument();
  });
});
