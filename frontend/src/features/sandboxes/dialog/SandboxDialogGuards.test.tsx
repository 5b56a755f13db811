import { screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../../../test/fakeApi";
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
