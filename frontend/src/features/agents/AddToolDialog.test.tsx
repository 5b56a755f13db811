import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { fakeApi } from "../../test/fakeApi";
import { adminMe, providers, renderSignedIn } from "../../test/render";
import { AddToolDialog } from "./AddToolDialog";

function sandbox(id: string, name: string, provider: string) {
  return {
    id,
    name,
    description: `${name} for the team`,
    provider,
    url: "",
    has_secret: false,
    config: {},
    health: { status: "unknown", checked_at: null, latency_ms: null, detail: "", history: [] },
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
  };
}

const registered = [sandbox("s1", "Local box", "local"), sandbox("s2", "Team OpenSandbox", "opensandbox")];

describe("Add tool dialog", () => {
  it("lists the workspace's sandboxes; pick → Add hands the sandbox over", async () => {
    fakeApi({
      "GET /api/v1/sandboxes": { body: { items: registered, next_page_token: "" } },
      "GET /api/v1/providers": { body: { items: providers } },
    });
    const onAdd = vi.fn();
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<AddToolDialog open onOpenChange={onOpenChange} hasSandbox={false} onAdd={onAdd} />);

    const dialog = await screen.findByRole("dialog", { name: "Add tool" });
    const section = await within(dialog).findByRole("group", { name: "Sandboxes" });
    expect(within(section).getAllByRole("radio")).toHaveLength(2);
    const add = within(dialog).getByRole("button", { name: "Add" });
    expect(add).toBeDisabled();

    await user.click(within(section).getByRole("radio", { name: /Team OpenSandbox/ }));
    await user.click(add);
    expect(onAdd).toHaveBeenCalledWith(expect.objectContaining({ id: "s2", name: "Team OpenSandbox" }));
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it("hides the Sandboxes section when the workspace has none", async () => {
    fakeApi({
      "GET /api/v1/sandboxes": { body: { items: [], next_page_token: "" } },
      "GET /api/v1/providers": { body: { items: providers } },
    });
    renderSignedIn(<AddToolDialog open onOpenChange={() => {}} hasSandbox={false} onAdd={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add tool" });
    expect(await within(dialog).findByText(/No sandboxes are registered/)).toBeInTheDocument();
    expect(within(dialog).queryByRole("group", { name: "Sandboxes" })).toBeNull();
    // An admin is taken to where sandboxes are added.
    expect(within(dialog).getByRole("link", { name: /Settings → Sandboxes/ })).toHaveAttribute("href", "/settings/sandboxes");
  });

  it("tells a member, who cannot add sandboxes, who can", async () => {
    fakeApi({
      "GET /api/v1/sandboxes": { body: { items: [], next_page_token: "" } },
      "GET /api/v1/providers": { body: { items: providers } },
    });
    renderSignedIn(<AddToolDialog open onOpenChange={() => {}} hasSandbox={false} onAdd={() => {}} />, { me: { ...adminMe, role: "member" } });
    const dialog = await screen.findByRole("dialog", { name: "Add tool" });
    expect(await within(dialog).findByText(/An admin adds them/)).toBeInTheDocument();
    expect(within(dialog).queryByRole("link")).toBeNull();
  });

  it("hides the Sandboxes section when the agent already has one", async () => {
    fakeApi({
      "GET /api/v1/sandboxes": { body: { items: registered, next_page_token: "" } },
      "GET /api/v1/providers": { body: { items: providers } },
    });
    renderSignedIn(<AddToolDialog open onOpenChange={() => {}} hasSandbox onAdd={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add tool" });
    expect(await within(dialog).findByText(/already has a sandbox/)).toBeInTheDocument();
    expect(within(dialog).queryByRole("group", { name: "Sandboxes" })).toBeNull();
  });

  it("shows each sandbox's health, and warns when the one picked failed its last check", async () => {
    const failing = {
      ...sandbox("s3", "Broken box", "opensandbox"),
      health: { status: "failed", checked_at: new Date().toISOString(), latency_ms: 5, detail: "network: connection refused", history: [] },
    };
    const healthy = {
      ...sandbox("s4", "Good box", "local"),
      health: { status: "ok", checked_at: new Date().toISOString(), latency_ms: 12, detail: "", history: [] },
    };
    fakeApi({
      "GET /api/v1/sandboxes": { body: { items: [healthy, failing], next_page_token: "" } },
      "GET /api/v1/providers": { body: { items: providers } },
    });
    const user = userEvent.setup();
    renderSignedIn(<AddToolDialog open onOpenChange={() => {}} hasSandbox={false} onAdd={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add tool" });
    const section = await within(dialog).findByRole("group", { name: "Sandboxes" });
    expect(within(section).getByRole("radio", { name: /Good box.*Health\s*ok.*12 ms/ })).toBeInTheDocument();
    expect(within(section).getByRole("radio", { name: /Broken box.*Health\s*failed/ })).toBeInTheDocument();

    await user.click(within(section).getByRole("radio", { name: /Good box/ }));
    expect(within(dialog).queryByRole("alert")).toBeNull();
    await user.click(within(section).getByRole("radio", { name: /Broken box/ }));
    expect(within(dialog).getByRole("alert").textContent).toMatch(/“Broken box” failed its last health check .*connection refused/);
  });
});
