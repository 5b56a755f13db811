import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../../../test/fakeApi";
import { renderSignedIn } from "../../../test/render";
import { ApprovalsCard } from "./ApprovalsCard";

const pending = {
  id: "ap1",
  run_id: "r1",
  tool: "write_file",
  arguments: { path: "report.md", content: "# Report\nline two" },
  arguments_truncated: false,
  status: "pending",
  requested_by: "langgraph",
  via: "mcp",
  requested_at: "2026-01-01T00:00:00Z",
  decided_by: null,
  decided_at: null,
  used_at: null,
  granted_by: "anyone",
  can_approve: true,
};

describe("Approvals card", () => {
  it("shows a waiting call with its arguments, and who decided once a person approves", async () => {
    const api = fakeApi({
      "GET /api/v1/runs/r1/approvals": [
        { body: { items: [pending] } },
        { body: { items: [{ ...pending, status: "approved", decided_by: "Ada", decided_at: "2026-01-01T00:01:00Z" }] } },
      ],
      "POST /api/v1/runs/r1/approvals/ap1/decision": {
        body: { ...pending, status: "approved", decided_by: "Ada", decided_at: "2026-01-01T00:01:00Z" },
      },
    });
    const user = userEvent.setup();
    renderSignedIn(<ApprovalsCard runId="r1" />);

    const waiting = await screen.findByRole("article", { name: "Create a file: waiting for approval" });
    expect(within(waiting).getByText(/langgraph, through an MCP client/)).toBeInTheDocument();
    expect(within(waiting).getByText("report.md")).toBeInTheDocument();
    expect(within(waiting).getByText(/line two/)).toBeInTheDocument();
    expect(screen.getByRole("region", { name: "Approvals" }).textContent).not.toMatch(/Auxilia-Approval|header/i);

    await user.click(within(waiting).getByRole("button", { name: "Approve" }));
    expect(await screen.findByText(/Approved by Ada on .+\. The call runs when it is made again\./)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Approve" })).not.toBeInTheDocument();
    expect(api.calls.find((c) => c.method === "POST")?.body).toEqual({ decision: "approve" });
  });

  it("says who may approve, and keeps Approve from a token the agent's rule does not let approve", async () => {
    const api = fakeApi({
      "GET /api/v1/runs/r1/approvals": {
        body: {
          items: [
            { ...pending, granted_by: "someone_else", can_approve: false },
            { ...pending, id: "ap2", tool: "execute", arguments: { command: "make" }, granted_by: "admin", can_approve: false },
          ],
        },
      },
      "POST /api/v1/runs/r1/approvals/ap1/decision": { body: { ...pending, status: "denied", decided_by: "langgraph", decided_at: "2026-01-01T00:01:00Z" } },
    });
    const user = userEvent.setup();
    renderSignedIn(<ApprovalsCard runId="r1" />);

    const mine = await screen.findByRole("article", { name: "Create a file: waiting for approval" });
    expect(within(mine).getByText("Someone other than whoever made the call must approve it.")).toBeInTheDocument();
    const approve = within(mine).getByRole("button", { name: "Approve" });
    expect(approve).toBeDisabled();
    expect(approve).toHaveAccessibleDescription("You made this call: someone else must approve it.");
    await user.click(approve);
    expect(api.calls.filter((c) => c.method === "POST")).toHaveLength(0);

    const admins = screen.getByRole("article", { name: "Run a command: waiting for approval" });
    expect(within(admins).getByText("An admin must approve it.")).toBeInTheDocument();
    expect(within(admins).getByRole("button", { name: "Approve" })).toHaveAccessibleDescription("Only an admin can approve this call.");

    await user.click(within(mine).getByRole("button", { name: "Deny" }));
    expect(api.calls.find((c) => c.method === "POST")?.body).toEqual({ decision: "deny" });
  });
});
