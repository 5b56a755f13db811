import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { fakeApi } from "../../../test/fakeApi";
import { providers, renderSignedIn } from "../../../test/render";
import { SandboxDialog } from "./SandboxDialog";

const id = "0190aaaa-0000-7000-8000-0000000000c1";

const saved = {
  id,
  name: "Jail",
  description: "",
  provider: "local",
  url: "",
  has_secret: false,
  config: {},
  health: { status: "failed", checked_at: null, latency_ms: null, detail: "", history: [] },
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

describe("Save & test", () => {
  it("keeps the dialog open after a save whose test fails, with the reason and what to check, then edits what was saved", { timeout: 30_000 }, async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "POST /api/v1/sandboxes": { status: 201, body: saved },
      [`GET /api/v1/sandboxes/${id}`]: { body: saved, headers: { ETag: '"1"' } },
      [`GET /api/v1/sandboxes/${id}/secret-hint`]: { body: { is_set: false, last4: null, length: null } },
      [`POST /api/v1/sandboxes/${id}/probe`]: { body: { ok: false, latency_ms: 2, reason: "auth", detail: "401 from the controller" } },
    });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await user.click(await within(dialog).findByRole("radio", { name: /Local/ }));
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Jail");
    await user.click(within(dialog).getByRole("button", { name: "Add sandbox" }));

    const after = await screen.findByRole("dialog", { name: "Sandbox saved" });
    const alert = within(after).getByRole("alert");
    expect(alert.textContent).toContain("Credentials: 401 from the controller");
    expect(alert.textContent).toContain("What to check: Check the API key or secret");
    expect(onOpenChange).not.toHaveBeenCalledWith(false);

    await user.click(within(after).getByRole("button", { name: "Edit settings" }));
    const edit = await screen.findByRole("dialog", { name: "Edit sandbox" });
    await waitFor(() => expect(within(edit).getByRole("textbox", { name: "Name" })).toHaveProperty("value", "Jail"));
    expect(api.callsTo("POST", "/api/v1/sandboxes")).toHaveLength(1);
  });

  it("closes when the test after the save passes", { timeout: 30_000 }, async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "POST /api/v1/sandboxes": { status: 201, body: saved },
      [`POST /api/v1/sandboxes/${id}/probe`]: { body: { ok: true, latency_ms: 2 } },
    });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await user.click(await within(dialog).findByRole("radio", { name: /Local/ }));
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Jail");
    await user.click(within(dialog).getByRole("button", { name: "Add sandbox" }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
  });
});
