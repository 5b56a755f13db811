import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { fakeApi, problem } from "../../../test/fakeApi";
import { providers, renderSignedIn } from "../../../test/render";
import { SandboxDialog } from "./SandboxDialog";

// Typing re-renders every field of the provider; on a busy machine that
// outlasts vitest's 5 s default. The bound only stops a hung test.
const typingTest = { timeout: 30_000 };

describe("Add sandbox dialog's first focus", typingTest, () => {
  it("is the form's first field, the chosen provider, not Close or the provider list", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    const chosen = await within(dialog).findByRole("radio", { checked: true });
    await waitFor(() => expect(document.activeElement).toBe(chosen));
    expect(document.activeElement).not.toBe(within(dialog).getByRole("button", { name: "Close" }));
  });
});

describe("Add sandbox dialog's Advanced fold", typingTest, () => {
  it("folds pools, kept files, resources and network away, named, closed, their defaults kept", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    const fold = await within(dialog).findByRole("group", { name: "Advanced settings" });
    expect(fold.tagName).toBe("DETAILS");
    expect(fold).not.toHaveAttribute("open");
    for (const name of ["Warm pool", "Resources", "Network"]) {
      expect(within(fold).getByRole("group", { name })).toBeInTheDocument();
    }
    expect(within(fold).getByRole("combobox", { name: "Keep files" })).toHaveValue("until_expiry");
    // What most sandboxes set stays outside the fold.
    expect(within(fold).queryByRole("spinbutton", { name: "Timeout (seconds)" })).toBeNull();
    expect(within(dialog).getByRole("spinbutton", { name: "Timeout (seconds)" })).toBeInTheDocument();
  });

  it("opens when the server refuses a field inside it", async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "POST /api/v1/sandboxes": problem(422, "validation_failed", "The request has invalid fields.", {
        errors: [{ field: "config.pool.size", message: "must be at most 200" }],
      }),
    });
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await user.click(await within(dialog).findByRole("radio", { name: /Local/ }));
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Pool box");
    await user.click(within(dialog).getByRole("button", { name: "Add sandbox" }));
    const fold = within(dialog).getByRole("group", { name: "Advanced settings" });
    await waitFor(() => expect(fold).toHaveAttribute("open"));
    expect(within(fold).getByRole("spinbutton", { name: "Size" })).toHaveAccessibleDescription(/must be at most 200/);
  });
});

describe("Sandbox dialog's guard on unsaved changes", typingTest, () => {
  it("asks before Escape discards what was typed, and closes at once when nothing was", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await user.type(await within(dialog).findByRole("textbox", { name: "Name" }), "Half typed");

    await user.keyboard("{Escape}");
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Close and lose the changes made here?");
    expect(onOpenChange).not.toHaveBeenCalled();
    await user.click(within(dialog).getByRole("button", { name: "Discard changes" }));
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it("asks before Cancel discards what was typed, as Escape does, and Keep editing keeps it", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    const name = await within(dialog).findByRole("textbox", { name: "Name" });
    await user.type(name, "Half typed");

    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Close and lose the changes made here?");
    expect(onOpenChange).not.toHaveBeenCalled();
    await user.click(within(dialog).getByRole("button", { name: "Keep editing" }));
    expect(name).toHaveValue("Half typed");
    expect(onOpenChange).not.toHaveBeenCalled();

    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await user.click(within(dialog).getByRole("button", { name: "Discard changes" }));
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it("closes on Cancel without asking when nothing changed", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await within(dialog).findByRole("textbox", { name: "Name" });
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it("closes on Escape without asking when nothing changed", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await within(dialog).findByRole("textbox", { name: "Name" });
    await user.keyboard("{Escape}");
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });
});

describe("Sandbox dialog's error summary", typingTest, () => {
  it("lists each refused field beside Save after a refused save, each a link to its field", async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "POST /api/v1/sandboxes": problem(422, "validation_failed", "The request has invalid fields.", {
        errors: [
          { field: "description", message: "must be at most 255 characters" },
          { field: "config.pool.size", message: "must be at most 200" },
        ],
      }),
    });
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await user.click(await within(dialog).findByRole("radio", { name: /Local/ }));
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Pool box");
    await user.click(within(dialog).getByRole("button", { name: "Add sandbox" }));

    const summary = await within(dialog).findByRole("alert", { name: "2 fields need a change before saving:" });
    const links = within(summary).getAllByRole("link");
    expect(links.map((l) => l.textContent)).toEqual([
      "Description: must be at most 255 characters",
      "Warm pool: Size: must be at most 200",
    ]);
    await user.click(links[1]!);
    expect(document.activeElement).toBe(within(dialog).getByRole("spinbutton", { name: "Size" }));
  });
});

describe("Sandbox dialog's guard, provider choice", typingTest, () => {
  it("closes without asking after only a provider was chosen, as nothing typed is lost", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await user.click(await within(dialog).findByRole("radio", { name: /Local/ }));
    await user.keyboard("{Escape}");
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });
});
