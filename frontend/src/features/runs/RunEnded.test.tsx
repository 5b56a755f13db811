import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderSignedIn } from "../../test/render";
import type { Run } from "./api/types";
import { RunEnded } from "./RunEnded";

const ended: Run = {
  id: "r1",
  agent_id: "a1",
  thread_id: "t-1",
  status: "completed",
  sandbox: { sandbox_id: "s1", name: "Team box", provider: "local", instance_id: "loc-1", created: true, replaced: false, deleted: false },
  notice: null,
  started_at: "2026-01-01T00:00:00Z",
  last_activity_at: "2026-01-01T00:05:00Z",
  ended_at: "2026-01-01T00:10:00Z",
  ended_by: null,
};

function shown(run: Run, gone: string | null = null) {
  renderSignedIn(<RunEnded run={run} gone={gone} />);
  return screen.getByRole("status", { name: "Run ended" });
}

describe("RunEnded", () => {
  it("says the agent lost its sandbox in the server's words, and where to give it one", () => {
    const notice = "Agent 'Analyst' no longer has sandbox 'Team box', which ended this run and released its instance.";
    const status = shown({ ...ended, ended_by: "agent_unbound", notice });
    expect(status).toHaveTextContent(notice);
    expect(within(status).getByRole("link", { name: "check its Tools" })).toHaveAttribute("href", "/agents/a1");
  });

  it("names what ended the run, not a guess", () => {
    expect(shown({ ...ended, ended_by: "newer_run" })).toHaveTextContent("A newer run on its thread ended it.");
  });

  it("does not blame the sandbox for a run that merely expired, even with a start notice", () => {
    const status = shown({ ...ended, status: "expired", ended_by: "idle", notice: "The thread's sandbox was gone; it got a new one." });
    expect(status).toHaveTextContent("It expired");
    expect(status).not.toHaveTextContent("got a new one");
    expect(within(status).queryByRole("link", { name: "check its Tools" })).toBeNull();
  });

  it("ended by its caller says so", () => {
    expect(shown({ ...ended, ended_by: "caller" })).toHaveTextContent("It was ended by its caller");
  });
});
