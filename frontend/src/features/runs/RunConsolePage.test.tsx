import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../../test/fakeApi";
import { renderSignedIn } from "../../test/render";
import RunConsolePage from "./RunConsolePage";

const agent = {
  id: "a1",
  name: "Analyst",
  description: "",
  emoji: "📊",
  color: "#1f6feb",
  sandbox: { sandbox_id: "s1", name: "Team box", provider: "local", url: "", tools: {} },
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

function run(id: string, notice: string | null) {
  return {
    id,
    agent_id: "a1",
    thread_id: "t-1",
    status: "active",
    sandbox: { sandbox_id: "s1", name: "Team box", provider: "local", instance_id: "loc-1", created: true, replaced: notice !== null },
    notice,
    started_at: "2026-01-01T00:00:00Z",
    last_activity_at: "2026-01-01T00:00:00Z",
    ended_at: null,
  };
}

describe("Run console", () => {
  it("shows a replaced sandbox's notice for the run that brought it, once", async () => {
    fakeApi({
      "GET /api/v1/agents": { body: { items: [agent], next_page_token: "" } },
      "GET /api/v1/agents/a1/threads": { body: { items: [{ thread_id: "t-1", sandbox_id: "s1", instance_id: "loc-1", last_run_at: "2026-01-01T00:00:00Z" }], next_page_token: "" } },
      "POST /api/v1/agents/a1/threads/t-1/runs": [
        { status: 201, body: run("r1", "The thread's sandbox was gone; it got a new one, and earlier files are lost.") },
        { status: 201, body: run("r2", null) },
      ],
      "GET /api/v1/runs/r1/ls": { body: { entries: [] } },
      "GET /api/v1/runs/r2/ls": { body: { entries: [] } },
    });
    const user = userEvent.setup();
    renderSignedIn(<RunConsolePage />);

    const recent = await screen.findByRole("radio", { name: "Recent" });
    // It is enabled once the thread list has arrived.
    await waitFor(() => expect(recent).toBeEnabled());
    await user.click(recent);
    await user.click(screen.getByRole("button", { name: "Start run" }));
    const current = await screen.findByRole("region", { name: "Current run" });
    expect(within(current).getByText(/got a new one/)).toBeInTheDocument();
    expect(within(current).getByRole("log", { name: "Command output" })).toBeInTheDocument();

    // The next run on the thread carries no notice, and none is left over.
    await user.click(screen.getByRole("button", { name: "Start run" }));
    await screen.findByRole("textbox", { name: "Command" });
    await within(screen.getByRole("region", { name: "Current run" })).findByText("on Team box", { exact: false });
    expect(screen.queryByText(/got a new one/)).toBeNull();
  });
});
