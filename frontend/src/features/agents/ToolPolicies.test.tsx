import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Agent } from "../../api/types";
import { fakeApi } from "../../test/fakeApi";
import { adminMe, providers, renderSignedIn, tools } from "../../test/render";
import { AgentEditor } from "./AgentEditor";
import { defaultApprovalRule, type ApprovalRule } from "./tools";

type Policies = NonNullable<Agent["sandbox"]>["tools"];

const allAllowed: Policies = {
  execute: "always_allow",
  ls: "always_allow",
  read_file: "always_allow",
  write_file: "always_allow",
  edit_file: "always_allow",
  glob: "always_allow",
  grep: "always_allow",
};

function agent(id: string, name: string, policies: Policies = allAllowed, approval: ApprovalRule = defaultApprovalRule): Agent {
  return {
    id,
    name,
    description: "",
    emoji: "🤖",
    color: "#6366f1",
    sandbox: { sandbox_id: "s1", name: "Box", provider: "local", url: "", tools: policies, approval },
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
    managed_by: "",
  };
}

describe("Tool policies", () => {
  it("describes each tool and warns while an always-allowed shell undoes a file tool's approval", { timeout: 30_000 }, async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: tools } },
    });
    const user = userEvent.setup();
    const saved = agent("a1", "Analyst", { ...allAllowed, write_file: "needs_approval", edit_file: "disabled" });
    renderSignedIn(<AgentEditor saved={{ agent: saved, etag: '"1"' }} />);

    // Each tool's policy is described by the catalogue's words, not only its id.
    expect(await screen.findByText("Create a file")).toBeInTheDocument();
    const writeFile = screen.getByRole("combobox", { name: "write_file" });
    expect(writeFile).toHaveAccessibleDescription(/^Creates a file with the given content/);

    const warning = await screen.findByText(/a shell command can read and write files/);
    expect(warning).toHaveTextContent(
      "Run a command is always allowed, and a shell command can read and write files: the limits on Create a file, Edit a text file can be worked around. Set Run a command to Needs approval as well for them to hold.",
    );

    await user.selectOptions(screen.getByRole("combobox", { name: "execute" }), "needs_approval");
    expect(screen.queryByText(/a shell command can read and write files/)).toBeNull();
  });

  // The run console's side of the link, opening with the agent picked, is in features/runs/RunStarter.test.tsx.
  it("links a saved agent with a sandbox to the run console, naming the agent", { timeout: 30_000 }, async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: tools } },
    });
    renderSignedIn(<AgentEditor saved={{ agent: agent("a2", "Builder"), etag: '"1"' }} />);
    expect(screen.getByRole("link", { name: "Run this agent" })).toHaveAttribute("href", "/runs?agent=a2");
  });

  it("lets an admin say who approves the agent's calls, and whether an approval sent with the call counts", { timeout: 30_000 }, async () => {
    const saved = agent("a1", "Analyst", { ...allAllowed, write_file: "needs_approval" });
    const strict = { ...saved.sandbox!, approval: { granted_by: "admin" as const, with_call: false } };
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: tools } },
      "PUT /api/v1/agents/a1/sandbox": { body: strict, headers: { ETag: '"2"' } },
      "GET /api/v1/agents/a1": { body: { ...saved, sandbox: strict }, headers: { ETag: '"2"' } },
    });
    const user = userEvent.setup();
    renderSignedIn(<AgentEditor saved={{ agent: saved, etag: '"1"' }} />);

    const who = screen.getByRole("combobox", { name: "Who may approve a call" });
    const withCall = screen.getByRole("checkbox", { name: "Accept an approval sent with the call" });
    expect(who).toHaveValue("anyone");
    expect(withCall).toBeChecked();
    await user.selectOptions(who, "someone_else");
    expect(withCall).toBeDisabled();
    expect(withCall).not.toBeChecked();
    expect(withCall).toHaveAccessibleDescription(/it would be the caller approving its own call/);

    await user.selectOptions(who, "admin");
    await user.click(withCall);
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    expect(await screen.findByText("Saved.")).toBeInTheDocument();
    expect(api.callsTo("PUT", "/api/v1/agents/a1/sandbox")[0]?.body).toMatchObject({ approval: { granted_by: "admin", with_call: false } });
  });

  it("keeps a member from setting who approves, and from changing a binding whose rule is an admin's", { timeout: 30_000 }, async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "GET /api/v1/tools": { body: { items: tools } },
    });
    const member = { ...adminMe, role: "member" as const };
    const { unmount } = renderSignedIn(<AgentEditor saved={{ agent: agent("a1", "Analyst"), etag: '"1"' }} />, { me: member });
    const who = screen.getByRole("combobox", { name: "Who may approve a call" });
    expect(who).toBeDisabled();
    expect(who).toHaveAccessibleDescription("Only an admin can change who approves this agent's calls.");
    expect(screen.getByRole("combobox", { name: "write_file" })).toBeEnabled();
    expect(screen.queryByRole("note")).toBeNull();
    unmount();

    const guarded = agent("a2", "Builder", allAllowed, { granted_by: "someone_else", with_call: true });
    renderSignedIn(<AgentEditor saved={{ agent: guarded, etag: '"1"' }} />, { me: member });
    expect(screen.getByRole("note")).toHaveTextContent("Only an admin can change or remove this sandbox");
    expect(screen.getByRole("combobox", { name: "write_file" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Remove Box" })).toBeDisabled();
    expect(screen.getByRole("combobox", { name: "Who may approve a call" })).toHaveValue("someone_else");
  });
});
