import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../../test/fakeApi";
import { providers, renderSignedIn, tools } from "../../test/render";
import { AgentEditor } from "./AgentEditor";

describe("Agent colour", () => {
  it("shows the default colour in the swatch while the field is empty, as its placeholder says", { timeout: 30_000 }, async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: tools } },
    });
    const user = userEvent.setup();
    renderSignedIn(<AgentEditor />);
    const swatch = screen.getByLabelText("Pick a colour");
    const field = screen.getByRole("textbox", { name: "Colour" });
    expect(field).toHaveAttribute("placeholder", "#6366f1");
    expect(swatch).toHaveValue("#6366f1");

    await user.type(field, "#0f9d58");
    expect(swatch).toHaveValue("#0f9d58");
    await user.clear(field);
    expect(swatch).toHaveValue("#6366f1");
  });
});
