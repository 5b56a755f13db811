import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { Sandbox } from "../../api/types";
import { fakeApi, problem } from "../../test/fakeApi";
import { renderSignedIn } from "../../test/render";
import { DeleteSandboxDialog } from "./DeleteSandboxDialog";

const sandbox: Sandbox = {
  id: "0190aaaa-0000-7000-8000-0000000000d1",
  name: "Team OpenSandbox",
  description: "",
  provider: "opensandbox",
  url: "http://sandbox.internal:8083",
  has_secret: false,
  config: { default_image: "python:3.12-slim", volume_mounts: [], use_server_proxy: true, gpu: 0, execd_token_is_api_key: false, default_packages: [], timeout: 1800,
    network: { default: "allow", allow: [], deny: [] }, resources: { cpu: 1, memory_mb: 2048, disk_mb: 0 },
    idle_minutes: 0, keep_files: "until_expiry", max_kept_days: 7, pool: { size: 0, max_idle_minutes: 60 } },
  health: { status: "unknown", checked_at: null, latency_ms: null, detail: "", history: [] },
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
  managed_by: "",
};
const path = `/api/v1/sandboxes/${sandbox.id}`;
const analyst = { id: "a1", name: "Analyst", emoji: "📊", color: "#1f6feb" };
const writer = { id: "a2", name: "Writer", emoji: "✍️", color: "#6366f1" };

describe("Delete sandbox", () => {
  it("confirms by name when no agent uses the sandbox", async () => {
    const api = fakeApi({
      [`GET ${path}/agents`]: { body: { items: [], next_page_token: "" } },
      [`DELETE ${path}`]: { status: 204 },
    });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<DeleteSandboxDialog sandbox={sandbox} open onOpenChange={onOpenChange} />);

    const dialog = await screen.findByRole("alertdialog", { name: "Delete sandbox" });
    expect(await within(dialog).findByText("Team OpenSandbox")).toBeInTheDocument();
    await user.click(within(dialog).getByRole("button", { name: "Delete sandbox" }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(api.callsTo("DELETE", path)[0]?.query.get("detach_agents")).toBeNull();
  });

  it("turns into 'Sandbox in use' on the server's 409, lists the agents and detaches them on confirm", async () => {
    const api = fakeApi({
      // No agent yet when the dialog opened; one bound meanwhile.
      [`GET ${path}/agents`]: { body: { items: [], next_page_token: "" } },
      [`DELETE ${path}`]: [
        problem(409, "sandbox_in_use", "Sandbox is used by 2 agent(s) — detach it first", { agents: [analyst, writer] }),
        { status: 204 },
      ],
    });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<DeleteSandboxDialog sandbox={sandbox} open onOpenChange={onOpenChange} />);

    const first = await screen.findByRole("alertdialog", { name: "Delete sandbox" });
    await user.click(await within(first).findByRole("button", { name: "Delete sandbox" }));

    const dialog = await screen.findByRole("alertdialog", { name: "Sandbox in use" });
    const agents = within(dialog).getByRole("list", { name: "Agents using this sandbox" });
    expect(within(agents).getAllByRole("listitem").map((li) => li.textContent)).toEqual(["📊 Analyst", "✍️ Writer"]);
    expect(dialog).toHaveTextContent("They lose code execution; their threads are kept.");
    expect(dialog).toHaveTextContent("live instances are destroyed, with the files in them, and the runs open on it end");

    await user.click(within(dialog).getByRole("button", { name: "Detach from 2 agents & delete" }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    const deletes = api.callsTo("DELETE", path);
    expect(deletes).toHaveLength(2);
    expect(deletes[1]?.query.get("detach_agents")).toBe("true");
  });

  it("says up front when agents already use the sandbox", async () => {
    fakeApi({ [`GET ${path}/agents`]: { body: { items: [analyst], next_page_token: "" } } });
    renderSignedIn(<DeleteSandboxDialog sandbox={sandbox} open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("alertdialog", { name: "Sandbox in use" });
    expect(within(dialog).getByRole("button", { name: "Detach from 1 agent & delete" })).toBeEnabled();
    // One agent is spoken of as one.
    expect(dialog).toHaveTextContent("It loses code execution; its threads are kept.");
    // What a bound sandbox's delete ends is said as it is for an unbound one.
    expect(dialog).toHaveTextContent("live instances are destroyed, with the files in them, and the runs open on it end");
    expect(dialog).toHaveTextContent("This cannot be undone.");
  });
});
