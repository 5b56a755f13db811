import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeApi, problem, type RecordedCall } from "../../test/fakeApi";
import { Route, Routes } from "react-router-dom";
import { renderSignedIn } from "../../test/render";
import RunConsolePage from "./RunConsolePage";

/** The console at /runs, as the app routes it: a run started moves it to /runs/:runId. */
function renderConsole() {
  renderSignedIn(
    <Routes>
      <Route path="/runs/:runId?" element={<RunConsolePage />} />
    </Routes>,
    { route: "/runs" },
  );
}

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
    sandbox: { sandbox_id: "s1", name: "Team box", provider: "local", instance_id: "loc-1", created: true, replaced: notice !== null, deleted: false },
    notice,
    started_at: "2026-01-01T00:00:00Z",
    last_activity_at: "2026-01-01T00:00:00Z",
    ended_at: null,
    ended_by: null,
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
      "GET /api/v1/runs/r1/approvals": { body: { items: [] } },
      "GET /api/v1/runs/r1/ls": { body: { entries: [] } },
      "GET /api/v1/runs/r2/approvals": { body: { items: [] } },
      "GET /api/v1/runs/r2/ls": { body: { entries: [] } },
    });
    const user = userEvent.setup();
    renderConsole();

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

  it("says what becomes of the thread's sandbox between runs: paused, then resumed, with its kept files", async () => {
    const thread = { thread_id: "t-1", sandbox_id: "s1", instance_id: "loc-1", last_run_at: "2026-01-01T00:00:00Z",
      last_activity_at: "2026-01-01T00:00:00Z", paused_at: null, kept: { kept_at: "2026-01-01T00:05:00Z", deleted_from: "2026-01-08T00:05:00Z" } };
    fakeApi({
      "GET /api/v1/agents": { body: { items: [agent], next_page_token: "" } },
      "GET /api/v1/agents/a1/threads": { body: { items: [{ ...thread, state: "paused", pauses_at: null }], next_page_token: "" } },
      "POST /api/v1/agents/a1/threads/t-1/runs": [
        { status: 201, body: run("r1", "The sandbox of this thread was restored from its files kept at 2026-01-01T00:05:00Z.") },
        { status: 201, body: run("r2", null) },
      ],
      "GET /api/v1/agents/a1/threads/t-1": [
        { body: { ...thread, state: "running", pauses_at: "2026-01-01T00:30:00Z" } },
        { body: { ...thread, state: "paused", pauses_at: null, paused_at: "2026-01-01T00:31:00Z" } },
      ],
      "GET /api/v1/runs/r1/approvals": { body: { items: [] } },
      "GET /api/v1/runs/r1/ls": { body: { entries: [] } },
      "GET /api/v1/runs/r2/approvals": { body: { items: [] } },
      "GET /api/v1/runs/r2/ls": { body: { entries: [] } },
    });
    const user = userEvent.setup();
    renderConsole();

    const recent = await screen.findByRole("radio", { name: "Recent" });
    await waitFor(() => expect(recent).toBeEnabled());
    await user.click(recent);
    await user.click(screen.getByRole("button", { name: "Start run" }));
    const current = await screen.findByRole("region", { name: "Current run" });
    expect(within(current).getByText(/restored from its files kept/)).toBeInTheDocument();
    const state = await within(current).findByLabelText("Thread's sandbox");
    expect(within(state).getByText("running")).toBeInTheDocument();
    expect(state).toHaveTextContent(/Pauses at .* if the thread is idle/);
    expect(state).toHaveTextContent(/Files kept at .* \(deleted from .*\)/);

    // Each run reads the thread again.
    await user.click(screen.getByRole("button", { name: "Start run" }));
    await waitFor(() => expect(within(screen.getByLabelText("Thread's sandbox")).getByText("paused")).toBeInTheDocument());
    expect(screen.getByLabelText("Thread's sandbox")).toHaveTextContent(/the next run resumes it, files intact/);
  });

  it("offers to approve each tool call the agent's binding makes need approval", async () => {
    // Every tool here needs approval: refused with 428 unless the call says a person approved it.
    const gated =
      (tool: string, answer: { status?: number; body?: unknown }) =>
      (call: RecordedCall) =>
        call.headers.get("Auxilia-Approval") === "granted"
          ? answer
          : problem(428, "approval_required", `The tool ${tool} needs a person's approval for agent "Analyst".`, { tool });
    const api = fakeApi({
      "GET /api/v1/agents": { body: { items: [agent], next_page_token: "" } },
      "GET /api/v1/agents/a1/threads": { body: { items: [], next_page_token: "" } },
      "POST /api/v1/agents/a1/threads/t-new/runs": { status: 201, body: run("r1", null) },
      "GET /api/v1/runs/r1/approvals": { body: { items: [] } },
      "GET /api/v1/runs/r1/ls": gated("ls", {
        body: { entries: [{ path: "/workspace/notes.txt", type: "file", size: 5, modified_at: "2026-01-01T00:00:00Z" }] },
      }),
      "GET /api/v1/runs/r1/files": gated("read_file", {
        body: { path: "/workspace/notes.txt", content: "hello", offset: 0, lines: 1, total_lines: 1 },
      }),
      "PUT /api/v1/runs/r1/files": gated("write_file", { status: 204 }),
      "POST /api/v1/runs/r1/execute": gated("execute", { body: { exit_code: 0, output: "hi\n", truncated: false, duration_ms: 3 } }),
    });
    const user = userEvent.setup();
    renderConsole();
    const threadId = await screen.findByRole("textbox", { name: "New thread id" });
    await user.clear(threadId);
    await user.type(threadId, "t-new");
    await user.click(screen.getByRole("button", { name: "Start run" }));
    const current = await screen.findByRole("region", { name: "Current run" });
    const files = within(current).getByRole("region", { name: "Files" });

    // Listing: refused, then approved.
    expect(await within(files).findByText(/The tool ls needs a person's approval/)).toBeInTheDocument();
    await user.click(within(files).getByRole("button", { name: "Approve and list" }));
    await user.click(await within(files).findByRole("button", { name: /notes\.txt/ }));
    expect(within(files).queryByText(/The tool ls needs/)).toBeNull();

    // Opening a file.
    await user.click(await within(files).findByRole("button", { name: "Approve and open" }));
    expect(await within(files).findByLabelText("Contents of notes.txt")).toHaveTextContent("hello");

    // Uploading: the approved upload goes to the same place.
    await user.upload(within(files).getByLabelText("File to upload"), new File(["data"], "up.txt"));
    await user.click(await within(files).findByRole("button", { name: "Approve and upload" }));
    expect(await within(files).findByText("Uploaded up.txt.")).toBeInTheDocument();
    const uploads = api.callsTo("PUT", "/api/v1/runs/r1/files");
    expect(uploads.map((c) => [c.query.get("path"), c.headers.get("Auxilia-Approval")])).toEqual([
      ["up.txt", null],
      ["up.txt", "granted"],
    ]);

    // A command.
    await user.type(within(current).getByRole("textbox", { name: "Command" }), "echo hi{Control>}{Enter}{/Control}");
    await user.click(await within(current).findByRole("button", { name: "Approve and run" }));
    const log = within(current).getByRole("log", { name: "Command output" });
    await within(log).findByText(/exit 0/);
    expect(api.callsTo("POST", "/api/v1/runs/r1/execute").map((c) => c.headers.get("Auxilia-Approval"))).toEqual([null, "granted"]);

    // Each approval went with the one call it was given for; the refreshes since (after the
    // upload, after each command) asked again without it.
    await waitFor(() => expect(api.callsTo("GET", "/api/v1/runs/r1/ls").length).toBeGreaterThan(2));
    const approved = (path: string) => api.callsTo("GET", path).filter((c) => c.headers.get("Auxilia-Approval") === "granted");
    expect(approved("/api/v1/runs/r1/ls")).toHaveLength(1);
    expect(approved("/api/v1/runs/r1/files")).toHaveLength(1);
  });

  it("offers no approval of its own where the agent's rule keeps the caller's word from counting", async () => {
    const refused = (tool: string) =>
      problem(428, "approval_required", `The tool ${tool} needs approval for agent "Analyst" from an admin token: the call waits for it in the Auxilia console.`, {
        tool,
        granted_by: "admin",
        grant_with_call: false,
      });
    const api = fakeApi({
      ...newThreadRoutes,
      "GET /api/v1/runs/r1/approvals": { body: { items: [] } },
      "GET /api/v1/runs/r1/ls": refused("ls"),
      "POST /api/v1/runs/r1/execute": refused("execute"),
    });
    const user = userEvent.setup();
    const files = await startRunOnNewThread(user);

    expect(await within(files).findByText(/The tool ls needs approval for agent "Analyst" from an admin token/)).toBeInTheDocument();
    expect(within(files).queryByRole("button", { name: "Approve and list" })).toBeNull();
    const current = screen.getByRole("region", { name: "Current run" });
    await user.type(within(current).getByRole("textbox", { name: "Command" }), "make{Control>}{Enter}{/Control}");
    const log = within(current).getByRole("log", { name: "Command output" });
    expect(await within(log).findByText(/The tool execute needs approval for agent "Analyst" from an admin token/)).toBeInTheDocument();
    expect(within(current).queryByRole("button", { name: "Approve and run" })).toBeNull();
    const sent = [...api.callsTo("GET", "/api/v1/runs/r1/ls"), ...api.callsTo("POST", "/api/v1/runs/r1/execute")];
    expect(sent.filter((c) => c.headers.get("Auxilia-Approval") !== null)).toHaveLength(0);
  });

  it("sends one approved call for a double-click, and keeps focus in the pane", async () => {
    let answer = () => {};
    const api = fakeApi({
      ...newThreadRoutes,
      "GET /api/v1/runs/r1/approvals": { body: { items: [] } },
      "GET /api/v1/runs/r1/ls": (call) =>
        call.headers.get("Auxilia-Approval") === "granted"
          ? new Promise((resolve) => {
              answer = () => resolve({ body: { entries: [] } });
            })
          : problem(428, "approval_required", "The tool ls needs a person's approval.", { tool: "ls" }),
    });
    const user = userEvent.setup();
    const files = await startRunOnNewThread(user);

    const approve = await within(files).findByRole("button", { name: "Approve and list" });
    await user.dblClick(approve);
    expect(approve).toBeDisabled();
    answer();
    expect(await within(files).findByText("This folder is empty.")).toBeInTheDocument();
    const approved = api.callsTo("GET", "/api/v1/runs/r1/ls").filter((c) => c.headers.get("Auxilia-Approval") === "granted");
    expect(approved).toHaveLength(1);
    await waitFor(() => expect(within(files).getByRole("heading", { name: "Files" })).toHaveFocus());
  });

  it("forgets a failed approval once the listing is asked for again", async () => {
    let down = true;
    fakeApi({
      ...newThreadRoutes,
      "GET /api/v1/runs/r1/approvals": { body: { items: [] } },
      "GET /api/v1/runs/r1/ls": (call) =>
        call.headers.get("Auxilia-Approval") === "granted" && down
          ? problem(502, "provider_error", "The sandbox's provider failed.")
          : problem(428, "approval_required", "The tool ls needs a person's approval.", { tool: "ls" }),
    });
    const user = userEvent.setup();
    const files = await startRunOnNewThread(user);

    await user.click(await within(files).findByRole("button", { name: "Approve and list" }));
    expect(await within(files).findByText("The sandbox's provider failed.")).toBeInTheDocument();
    down = false;
    await user.click(within(files).getByRole("button", { name: "Refresh files" }));
    expect(await within(files).findByText("The tool ls needs a person's approval.")).toBeInTheDocument();
    expect(within(files).queryByText("The sandbox's provider failed.")).toBeNull();
  });
  it("learns from a command's 409 that its run ended with its deleted sandbox, and says what to do next", async () => {
    const deletedNotice =
      "Sandbox 'Team box' was deleted, which ended this run and destroyed its instance. Give the agent a sandbox in its Tools, then start a new run.";
    const ended = {
      ...run("r1", deletedNotice),
      status: "completed",
      ended_at: "2026-01-01T00:10:00Z",
      ended_by: "sandbox_deleted",
      sandbox: { sandbox_id: "s1", name: "Team box", provider: "local", instance_id: "loc-1", created: true, replaced: false, deleted: true },
    };
    fakeApi({
      "GET /api/v1/agents": { body: { items: [agent], next_page_token: "" } },
      "GET /api/v1/agents/a1/threads": { body: { items: [], next_page_token: "" } },
      "POST /api/v1/agents/a1/threads/t-new/runs": { status: 201, body: run("r1", null) },
      "GET /api/v1/agents/a1/threads/t-new": {
        body: { thread_id: "t-new", sandbox_id: null, instance_id: null, last_run_at: null, state: "none",
          last_activity_at: null, pauses_at: null, paused_at: null, kept: null },
      },
      "GET /api/v1/runs/r1": { body: ended },
      "GET /api/v1/runs/r1/approvals": { body: { items: [] } },
      "GET /api/v1/runs/r1/ls": { body: { entries: [] } },
      "POST /api/v1/runs/r1/execute": problem(409, "run_not_active", "Run r1 is not active: it is completed; start a new run", {
        run_status: "completed",
      }),
    });
    const user = userEvent.setup();
    renderConsole();
    const threadId = await screen.findByRole("textbox", { name: "New thread id" });
    await user.clear(threadId);
    await user.type(threadId, "t-new");
    await user.click(screen.getByRole("button", { name: "Start run" }));
    const current = await screen.findByRole("region", { name: "Current run" });
    expect(within(current).getByText("active")).toBeInTheDocument();

    await user.type(within(current).getByRole("textbox", { name: "Command" }), "echo hi");
    await user.keyboard("{Control>}{Enter}{/Control}");

    const notice = await within(current).findByRole("status", { name: "Run ended" });
    expect(notice).toHaveTextContent("This run has ended");
    expect(notice).toHaveTextContent(deletedNotice);
    expect(within(notice).getByRole("link", { name: "check its Tools" })).toHaveAttribute("href", "/agents/a1");
    expect(within(current).getByText("completed")).toBeInTheDocument();
    expect(within(current).queryByText("active")).toBeNull();
    expect(within(current).getByText("on Team box, deleted since")).toBeInTheDocument();
    // Nothing offers what cannot work: no live thread state, no Retry, no command line.
    expect(within(current).queryByLabelText("Thread's sandbox")).toBeNull();
    expect(within(current).queryByRole("button", { name: "Retry" })).toBeNull();
    expect(within(current).getByRole("textbox", { name: "Command" })).toBeDisabled();
  });
});

const newThreadRoutes = {
  "GET /api/v1/agents": { body: { items: [agent], next_page_token: "" } },
  "GET /api/v1/agents/a1/threads": { body: { items: [], next_page_token: "" } },
  "POST /api/v1/agents/a1/threads/t-new/runs": { status: 201, body: run("r1", null) },
};

/** Starts run r1 on a new thread "t-new" and answers its file pane. */
async function startRunOnNewThread(user: ReturnType<typeof userEvent.setup>) {
  renderConsole();
  const threadId = await screen.findByRole("textbox", { name: "New thread id" });
  await user.clear(threadId);
  await user.type(threadId, "t-new");
  await user.click(screen.getByRole("button", { name: "Start run" }));
  return within(await screen.findByRole("region", { name: "Current run" })).getByRole("region", { name: "Files" });
}
