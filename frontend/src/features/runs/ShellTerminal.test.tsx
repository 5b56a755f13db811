import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeApi, problem } from "../../test/fakeApi";
import { FakeWebSocket, fakeWebSocket } from "../../test/fakeWebSocket";
import { providers, renderSignedIn } from "../../test/render";
import { ConsoleTabs } from "./ConsoleTabs";

/** The catalogue with the local provider's terminal, and Daytona's left out. */
const catalogue = {
  items: providers.map((p) => {
    const others = p.capabilities.filter((c) => c !== "terminal");
    return { ...p, capabilities: p.name === "local" ? [...others, "terminal"] : others };
  }),
};

const ticket = { status: 201, body: { ticket: "tk-1", expires_at: "2026-01-01T00:00:30Z" } };

async function openTerminalTab(provider = "local", disabled = false) {
  const user = userEvent.setup();
  renderSignedIn(<ConsoleTabs runId="r1" provider={provider} disabled={disabled} />);
  await user.click(screen.getByRole("tab", { name: "Terminal" }));
  return user;
}

async function nextSocket(sockets: FakeWebSocket[], count: number): Promise<FakeWebSocket> {
  await waitFor(() => expect(sockets).toHaveLength(count));
  return sockets[count - 1]!;
}

function screenText() {
  return document.querySelector(".xterm-rows")?.textContent ?? "";
}

// xterm.js is slow to start in jsdom on a small shared machine.
describe("Shell terminal", { timeout: 30_000 }, () => {
  it("opens the run's shell with a ticket: keystrokes go out and output comes in as binary frames", async () => {
    const api = fakeApi({ "GET /api/v1/providers": { body: catalogue }, "POST /api/v1/runs/r1/terminal-tickets": ticket });
    const sockets = fakeWebSocket();
    const user = await openTerminalTab();

    const socket = await nextSocket(sockets, 1);
    const url = new URL(socket.url);
    expect(url.protocol).toBe("ws:");
    expect(url.pathname).toBe("/api/v1/runs/r1/terminal");
    // The initial size is the terminal's own (80x24 where nothing can be measured).
    expect(Object.fromEntries(url.searchParams)).toEqual({ ticket: "tk-1", cols: "80", rows: "24" });
    expect(socket.binaryType).toBe("arraybuffer");
    expect(api.callsTo("POST", "/api/v1/runs/r1/terminal-tickets")[0]?.headers.has("Auxilia-Approval")).toBe(false);

    socket.serverOpen();
    await screen.findByText("Shell open in the run's working directory.");
    const input = screen.getByRole("textbox", { name: "Shell input" });
    expect(input).toHaveFocus();
    expect(input).toHaveAccessibleDescription(/copies the selection/);

    await user.keyboard("echo é{Enter}");
    expect(socket.keystrokes()).toBe("echo é\r");
    expect(socket.sent.every((f) => f instanceof Uint8Array)).toBe(true);

    // Output split inside a character is put together by the terminal.
    const bytes = new TextEncoder().encode("résumé 42\r\n$ ");
    socket.serverSends(bytes.slice(0, 2));
    socket.serverSends(bytes.slice(2));
    await waitFor(() => expect(screenText()).toContain("résumé 42"));
  });

  it("says when the shell exits, with its code, and opens a new one on request", async () => {
    const api = fakeApi({ "GET /api/v1/providers": { body: catalogue }, "POST /api/v1/runs/r1/terminal-tickets": ticket });
    const sockets = fakeWebSocket();
    const user = await openTerminalTab();
    const first = await nextSocket(sockets, 1);
    first.serverOpen();
    first.serverSends(JSON.stringify({ type: "exit", code: 3 }));
    first.serverCloses(1000);

    expect(await screen.findByText("The shell exited with code 3.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Open a new shell" }));
    const second = await nextSocket(sockets, 2);
    expect(api.callsTo("POST", "/api/v1/runs/r1/terminal-tickets")).toHaveLength(2);
    second.serverOpen();
    await screen.findByText("Shell open in the run's working directory.");
  });

  it("shows the server's error, and a connection lost without one", async () => {
    fakeApi({ "GET /api/v1/providers": { body: catalogue }, "POST /api/v1/runs/r1/terminal-tickets": ticket });
    const sockets = fakeWebSocket();
    const user = await openTerminalTab();
    const first = await nextSocket(sockets, 1);
    first.serverOpen();
    first.serverSends(JSON.stringify({ type: "error", message: "the sandbox is gone" }));
    first.serverCloses(1011);
    expect(await screen.findByRole("alert")).toHaveTextContent("the sandbox is gone");

    await user.click(screen.getByRole("button", { name: "Try again" }));
    const second = await nextSocket(sockets, 2);
    second.serverCloses(1006);
    expect(await screen.findByRole("alert")).toHaveTextContent("The terminal could not be opened.");
  });

  it("asks a person to approve the terminal when the execute tool needs approval, then opens it with the approval", async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: catalogue },
      "POST /api/v1/runs/r1/terminal-tickets": [
        problem(428, "approval_required", "The tool execute needs a person's approval."),
        ticket,
      ],
    });
    const sockets = fakeWebSocket();
    const user = await openTerminalTab();

    const approval = await screen.findByRole("region", { name: "Approve the terminal" });
    expect(sockets).toHaveLength(0);
    await user.click(within(approval).getByRole("button", { name: "Approve and open terminal" }));

    const socket = await nextSocket(sockets, 1);
    const calls = api.callsTo("POST", "/api/v1/runs/r1/terminal-tickets");
    expect(calls).toHaveLength(2);
    expect(calls[1]?.headers.get("Auxilia-Approval")).toBe("granted");
    socket.serverOpen();
    await screen.findByText("Shell open in the run's working directory.");
    expect(screen.queryByRole("region", { name: "Approve the terminal" })).toBeNull();
  });

  it("says who approves the terminal where the agent's rule keeps the console's approval from counting", async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: catalogue },
      "POST /api/v1/runs/r1/terminal-tickets": problem(
        428,
        "approval_required",
        'A terminal for agent "Analyst" is approved as it is made, never in the console, and an approval given with it does not count: this agent\'s approvals are decided in the console only.',
        { tool: "execute", granted_by: "anyone", grant_with_call: false },
      ),
    });
    const sockets = fakeWebSocket();
    await openTerminalTab();

    expect(await screen.findByRole("alert")).toHaveTextContent(/A terminal for agent "Analyst" is approved as it is made/);
    expect(screen.queryByRole("region", { name: "Approve the terminal" })).toBeNull();
    expect(sockets).toHaveLength(0);
    expect(api.callsTo("POST", "/api/v1/runs/r1/terminal-tickets")).toHaveLength(1);
  });

  it("shows a refused ticket's problem", async () => {
    fakeApi({
      "GET /api/v1/providers": { body: catalogue },
      "POST /api/v1/runs/r1/terminal-tickets": problem(403, "tool_disabled", "The tool execute is disabled for this agent."),
    });
    const sockets = fakeWebSocket();
    await openTerminalTab();
    expect(await screen.findByRole("alert")).toHaveTextContent("The tool execute is disabled for this agent.");
    expect(sockets).toHaveLength(0);
  });

  it("says so when the sandbox's provider has no terminal, and asks for no ticket", async () => {
    const api = fakeApi({ "GET /api/v1/providers": { body: catalogue } });
    const sockets = fakeWebSocket();
    await openTerminalTab("daytona");
    expect(await screen.findByText("This sandbox's provider (Daytona) has no terminal. Use Commands to run one command at a time.")).toBeInTheDocument();
    expect(api.callsTo("POST", "/api/v1/runs/r1/terminal-tickets")).toHaveLength(0);
    expect(sockets).toHaveLength(0);
  });

  it("opens nothing for an ended run", async () => {
    const api = fakeApi({ "GET /api/v1/providers": { body: catalogue } });
    fakeWebSocket();
    await openTerminalTab("local", true);
    expect(await screen.findByText("The run has ended: its terminal is closed.")).toBeInTheDocument();
    expect(api.callsTo("POST", "/api/v1/runs/r1/terminal-tickets")).toHaveLength(0);
  });

  it("keeps the shell open while the command form is shown, and moves between the tabs with the arrow keys", async () => {
    fakeApi({ "GET /api/v1/providers": { body: catalogue }, "POST /api/v1/runs/r1/terminal-tickets": ticket });
    const sockets = fakeWebSocket();
    const user = userEvent.setup();
    renderSignedIn(<ConsoleTabs runId="r1" provider="local" />);

    const commands = screen.getByRole("tab", { name: "Commands" });
    expect(commands).toHaveAttribute("aria-selected", "true");
    expect(screen.getByRole("tabpanel", { name: "Commands" })).toBeVisible();
    // No shell opens until someone asks for one.
    expect(sockets).toHaveLength(0);

    commands.focus();
    await user.keyboard("{ArrowRight}");
    const terminal = screen.getByRole("tab", { name: "Terminal" });
    expect(terminal).toHaveFocus();
    expect(terminal).toHaveAttribute("aria-selected", "true");
    const socket = await nextSocket(sockets, 1);
    socket.serverOpen();
    await screen.findByText("Shell open in the run's working directory.");

    // Shift+Tab leaves the shell (Tab is the shell's), back to the tabs.
    expect(screen.getByRole("textbox", { name: "Shell input" })).toHaveFocus();
    await user.keyboard("{Shift>}{Tab}{/Shift}");
    expect(terminal).toHaveFocus();
    expect(socket.keystrokes()).toBe("");
    await user.keyboard("{ArrowLeft}");
    expect(commands).toHaveFocus();
    expect(screen.getByRole("textbox", { name: "Command" })).toBeVisible();
    expect(socket.closedWith).toBeUndefined();
  });

  it("closes the shell when it is taken off the page", async () => {
    fakeApi({ "GET /api/v1/providers": { body: catalogue }, "POST /api/v1/runs/r1/terminal-tickets": ticket });
    const sockets = fakeWebSocket();
    const user = userEvent.setup();
    const { unmount } = renderSignedIn(<ConsoleTabs runId="r1" provider="local" />);
    await user.click(screen.getByRole("tab", { name: "Terminal" }));
    const socket = await nextSocket(sockets, 1);
    socket.serverOpen();
    await screen.findByText("Shell open in the run's working directory.");
    unmount();
    expect(socket.closedWith).toBe(1000);
  });
});
