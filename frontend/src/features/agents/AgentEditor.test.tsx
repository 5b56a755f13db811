import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router-dom";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeApi, problem } from "../../test/fakeApi";
import { providers, renderSignedIn, tools } from "../../test/render";
import { AgentEditor } from "./AgentEditor";
import AgentEditorPage from "./AgentEditorPage";

function agent(name: string, description: string) {
  return {
    id: "a1",
    name,
    description,
    emoji: "🤖",
    color: "#6366f1",
    sandbox: null,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
    managed_by: "",
  };
}

describe("Agent editor", () => {
  it("asks before leaving with unsaved changes, and stays with them on Cancel", async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: tools } },
      "GET /api/v1/agents/a1": { body: agent("Analyst", ""), headers: { ETag: '"3"' } },
    });
    const user = userEvent.setup();
    renderSignedIn(
      <Routes>
        <Route path="/agents/:agentId" element={<AgentEditorPage />} />
        <Route path="/agents" element={<p>The agents list</p>} />
      </Routes>,
      { route: "/agents/a1" },
    );
    const description = await screen.findByRole("textbox", { name: "Description" });
    // Nothing typed: leaving does not ask.
    expect(screen.queryByText("Unsaved changes")).toBeNull();
    await user.type(description, "Numbers");
    expect(screen.getByText("Unsaved changes")).toBeInTheDocument();

    await user.click(screen.getByRole("link", { name: "Agents" }));
    const ask = await screen.findByRole("alertdialog", { name: "Leave without saving?" });
    await user.click(within(ask).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByText("The agents list")).toBeNull();
    expect(screen.getByRole("textbox", { name: "Description" })).toHaveValue("Numbers");

    await user.click(screen.getByRole("link", { name: "Agents" }));
    await user.click(await screen.findByRole("button", { name: "Leave and lose changes" }));
    expect(await screen.findByText("The agents list")).toBeInTheDocument();
  }, 20_000);

  it("after a refused save, lists each bad field beside Save and takes the cursor to it", async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: tools } },
      "PATCH /api/v1/agents/a1": problem(422, "validation_failed", "The request has invalid fields.", {
        errors: [
          { field: "name", message: "must be at most 255 characters" },
          { field: "color", message: "must be a colour such as #1f6feb" },
        ],
      }),
    });
    const user = userEvent.setup();
    renderSignedIn(<AgentEditor saved={{ agent: agent("Analyst", ""), etag: '"3"' }} />);
    const colour = screen.getByRole("textbox", { name: "Colour" });
    await user.clear(colour);
    await user.type(colour, "blue-ish");
    await user.click(screen.getByRole("button", { name: "Save changes" }));

    const summary = await screen.findByRole("alert", { name: "2 fields need a change before saving:" });
    expect(summary).toHaveFocus();
    const links = within(summary).getAllByRole("link");
    expect(links.map((a) => a.textContent)).toEqual([
      "Name: must be at most 255 characters",
      "Colour: must be a colour such as #1f6feb",
    ]);
    // The summary sits with the Save button, in the footer that stays in view.
    expect(summary.closest(".editor__actions")).toContainElement(screen.getByRole("button", { name: "Save changes" }));
    await user.click(links[1]!);
    expect(colour).toHaveFocus();
  });

  it("after a 412, loads the other writer's changes under the person's own edits", async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: tools } },
      "PATCH /api/v1/agents/a1": [
        problem(412, "precondition_failed", "The agent changed since it was read (it is now at version 5): read it again."),
        { body: agent("Mine", "Theirs"), headers: { ETag: '"6"' } },
      ],
      // Someone else changed the description meanwhile.
      "GET /api/v1/agents/a1": [
        { body: agent("Analyst", "Theirs"), headers: { ETag: '"5"' } },
        { body: agent("Mine", "Theirs"), headers: { ETag: '"6"' } },
      ],
    });
    const user = userEvent.setup();
    renderSignedIn(<AgentEditor saved={{ agent: agent("Analyst", "Old"), etag: '"3"' }} />);

    const name = screen.getByRole("textbox", { name: /Name/ });
    await user.clear(name);
    await user.type(name, "Mine");
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    await user.click(await screen.findByRole("button", { name: "Load their changes, keep mine" }));

    expect(await screen.findByDisplayValue("Theirs")).toBeInTheDocument();
    expect(name).toHaveValue("Mine");
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    expect(await screen.findByText("Saved.")).toBeInTheDocument();

    const patches = api.callsTo("PATCH", "/api/v1/agents/a1");
    expect(patches.map((c) => c.headers.get("If-Match"))).toEqual(['"3"', '"5"']);
    expect(patches[1]?.body).toEqual({ name: "Mine" });
  });

  it("stays open with the person's edits when a later step of a save fails", async () => {
    const binding = {
      sandbox_id: "s1",
      name: "Box",
      provider: "local",
      url: "",
      tools: { execute: "always_allow", read_file: "always_allow", write_file: "always_allow", edit_file: "always_allow", ls: "always_allow", grep: "always_allow", glob: "always_allow" },
    };
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: tools } },
      "GET /api/v1/agents/a1": [
        { body: { ...agent("Analyst", ""), sandbox: binding }, headers: { ETag: '"3"' } },
        problem(503, "unavailable", "The database is busy."),
      ],
      "PATCH /api/v1/agents/a1": { body: { ...agent("Renamed", ""), sandbox: binding }, headers: { ETag: '"4"' } },
      "DELETE /api/v1/agents/a1/sandbox": [problem(503, "unavailable", "The database is busy."), { status: 204, headers: { ETag: '"5"' } }],
    });
    const user = userEvent.setup();
    renderSignedIn(
      <Routes>
        <Route path="/agents/:agentId" element={<AgentEditorPage />} />
      </Routes>,
      { route: "/agents/a1" },
    );

    const name = await screen.findByRole("textbox", { name: /Name/ });
    await user.clear(name);
    await user.type(name, "Renamed");
    await user.click(screen.getByRole("button", { name: "Remove Box" }));
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    expect(await screen.findByText("The database is busy.")).toBeInTheDocument();

    expect(screen.getByRole("textbox", { name: /Name/ })).toHaveValue("Renamed");
    expect(screen.queryByRole("button", { name: "Remove Box" })).toBeNull();
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(api.callsTo("DELETE", "/api/v1/agents/a1/sandbox")).toHaveLength(2));
    expect(api.callsTo("DELETE", "/api/v1/agents/a1/sandbox").map((c) => c.headers.get("If-Match"))).toEqual(['"4"', '"4"']);
    expect(api.callsTo("PATCH", "/api/v1/agents/a1")).toHaveLength(1);
  });

  it("lists the tools the server catalogues, with their descriptions, and binds each at its default policy", async () => {
    // A catalogue unlike today's: another order, a default that is not always_allow, a tool the SPA never heard of.
    const catalogue = [
      { ...tools.find((t) => t.name === "write_file")!, default_policy: "needs_approval" },
      tools.find((t) => t.name === "execute")!,
      { name: "browse", title: "Open a web page", description: "Fetches a page and answers its text.", default_policy: "disabled", input_schema: {} },
    ];
    const sandbox = {
      id: "s1",
      name: "Box",
      description: "",
      provider: "local",
      url: "",
      has_secret: false,
      config: {},
      health: { status: "unknown", checked_at: null, latency_ms: null, detail: "", history: [] },
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
      managed_by: "",
    };
    const binding = {
      sandbox_id: "s1",
      name: "Box",
      provider: "local",
      url: "",
      tools: { write_file: "needs_approval", execute: "always_allow", browse: "disabled" },
      approval: { granted_by: "anyone", with_call: true },
    };
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: catalogue } },
      "GET /api/v1/sandboxes": { body: { items: [sandbox], next_page_token: "" } },
      "PUT /api/v1/agents/a1/sandbox": { body: binding, headers: { ETag: '"4"' } },
      "GET /api/v1/agents/a1": { body: { ...agent("Analyst", ""), sandbox: binding }, headers: { ETag: '"4"' } },
    });
    const user = userEvent.setup();
    renderSignedIn(<AgentEditor saved={{ agent: agent("Analyst", ""), etag: '"3"' }} />);

    await user.click(screen.getByRole("button", { name: "Add tool" }));
    const dialog = await screen.findByRole("dialog", { name: "Add tool" });
    await user.click(await within(dialog).findByRole("radio", { name: /Box/ }));
    await user.click(within(dialog).getByRole("button", { name: "Add" }));

    const list = await screen.findByRole("list", { name: "Tools and their policies" });
    const rows = within(list).getAllByRole("listitem");
    expect(rows.map((row) => row.querySelector("label")?.textContent)).toEqual(["write_file", "execute", "browse"]);
    expect(screen.getByRole("combobox", { name: "write_file" })).toHaveValue("needs_approval");
    expect(screen.getByRole("combobox", { name: "browse" })).toHaveValue("disabled");
    expect(screen.getByRole("combobox", { name: "browse" })).toHaveAccessibleDescription("Fetches a page and answers its text.");
    expect(within(rows[1]!).getByText("Run a command")).toBeInTheDocument();
    expect(within(rows[1]!).getByText(catalogue[1]!.description)).toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Save changes" }));
    expect(await screen.findByText("Saved.")).toBeInTheDocument();
    expect(api.callsTo("PUT", "/api/v1/agents/a1/sandbox")[0]?.body).toEqual({
      sandbox_id: "s1",
      tools: { write_file: "needs_approval", execute: "always_allow", browse: "disabled" },
      approval: { granted_by: "anyone", with_call: true },
    });
  });
});
