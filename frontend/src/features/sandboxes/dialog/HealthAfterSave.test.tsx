import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { fakeApi } from "../../../test/fakeApi";
import { providers, renderSignedIn } from "../../../test/render";
import { SandboxDialog } from "./SandboxDialog";

const id = "0190aaaa-0000-7000-8000-0000000000b1";

const saved = {
  id,
  name: "Jail",
  description: "",
  provider: "local",
  url: "",
  has_secret: false,
  config: {},
  health: { status: "unknown", checked_at: null, latency_ms: null, detail: "", history: [] },
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

describe("Health after saving a sandbox", () => {
  it("probes a new sandbox as soon as it is added, so its health is known at once", { timeout: 30_000 }, async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "POST /api/v1/sandboxes": { status: 201, body: saved },
      [`POST /api/v1/sandboxes/${id}/probe`]: { body: { ok: true, latency_ms: 3 } },
    });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await user.click(await within(dialog).findByRole("radio", { name: /Local/ }));
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Jail");
    await user.click(within(dialog).getByRole("button", { name: "Add sandbox" }));

    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    await waitFor(() => expect(api.callsTo("POST", `/api/v1/sandboxes/${id}/probe`)).toHaveLength(1));
    // Without a body: the probe of the sandbox as saved, which the server records as its health.
    expect(api.callsTo("POST", `/api/v1/sandboxes/${id}/probe`)[0]?.body).toBeUndefined();
  });

  it("does not probe again after an edit that leaves the connection as it was", { timeout: 30_000 }, async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      [`GET /api/v1/sandboxes/${id}`]: { body: saved, headers: { ETag: '"1"' } },
      [`GET /api/v1/sandboxes/${id}/secret-hint`]: { body: { is_set: false, last4: null, length: null } },
      [`PATCH /api/v1/sandboxes/${id}`]: { body: saved, headers: { ETag: '"2"' } },
    });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} sandboxId={id} />);
    const dialog = await screen.findByRole("dialog", { name: "Edit sandbox" });
    await user.type(await within(dialog).findByRole("textbox", { name: "Description" }), "Bubblewrap");
    await user.click(within(dialog).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(api.callsTo("PATCH", `/api/v1/sandboxes/${id}`)[0]?.body).toEqual({ description: "Bubblewrap" });
    expect(api.callsTo("POST", `/api/v1/sandboxes/${id}/probe`)).toHaveLength(0);
  });
});
