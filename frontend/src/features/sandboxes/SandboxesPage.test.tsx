import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeApi, problem } from "../../test/fakeApi";
import { adminMe, providers, renderSignedIn } from "../../test/render";
import SandboxesPage from "./SandboxesPage";

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();

const failing = {
  id: "s1",
  name: "Team OpenSandbox",
  description: "Python 3.12 with pandas",
  provider: "opensandbox",
  url: "http://sandbox.internal:8083",
  has_secret: true,
  config: {},
  health: {
    status: "failed",
    checked_at: minutesAgo(3),
    latency_ms: 41,
    detail: "the controller refused the API key",
    history: [
      { at: minutesAgo(9), ok: true, latency_ms: 12 },
      { at: minutesAgo(6), ok: true, latency_ms: 18 },
      { at: minutesAgo(3), ok: false, latency_ms: 41 },
    ],
  },
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

describe("Settings → Sandboxes", () => {
  it("shows a row per sandbox with its provider, health, latency, age and history", { timeout: 30_000 }, async () => {
    fakeApi({
      "GET /api/v1/sandboxes": { body: { items: [failing], next_page_token: "" } },
      "GET /api/v1/providers": { body: { items: providers } },
    });
    renderSignedIn(<SandboxesPage />);
    const row = await screen.findByRole("listitem", { name: "Team OpenSandbox" });
    expect(within(row).getByText("Python 3.12 with pandas")).toBeInTheDocument();
    expect(within(row).getByText("OpenSandbox")).toBeInTheDocument();
    // Cut by the row's width, if at all: the whole URL is its title.
    expect(within(row).getByText("http://sandbox.internal:8083")).toHaveAttribute("title", "http://sandbox.internal:8083");
    // A failed probe's latency is not shown as if it had answered.
    expect(within(row).getByText("checked 3 min ago")).toBeInTheDocument();
    expect(within(row).queryByText(/41 ms/)).toBeNull();
    // The failure's detail is reachable by keyboard focus, not only by hovering.
    expect(within(row).getByLabelText("Health failed: the controller refused the API key")).toHaveAttribute("tabindex", "0");
    const sparkline = within(row).getByRole("img", { name: "The last 3 probes: 12 ms, 18 ms, failed" });
    // The failure is a mark of its own, not a point of the latency line.
    expect(sparkline.querySelectorAll("polyline")).toHaveLength(1);
    expect(sparkline.querySelector("polyline")?.getAttribute("points")?.split(" ")).toHaveLength(2);
    expect(sparkline.querySelectorAll("line.sparkline__fail")).toHaveLength(1);
    // The health check says what it does in words, not only as an icon.
    expect(within(row).getByRole("button", { name: "Check health of Team OpenSandbox" })).toHaveTextContent(/^Check health/);
    expect(within(row).getByRole("button", { name: "Edit Team OpenSandbox" })).toBeInTheDocument();
    expect(within(row).getByRole("button", { name: "Delete Team OpenSandbox" })).toBeInTheDocument();
  });

  it("says how to start when there are none", async () => {
    fakeApi({
      "GET /api/v1/sandboxes": { body: { items: [], next_page_token: "" } },
      "GET /api/v1/providers": { body: { items: providers } },
    });
    renderSignedIn(<SandboxesPage />);
    expect(await screen.findByText("No sandboxes yet. Add one to give agents code execution.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Add sandbox" })).toBeInTheDocument();
  });

  it("shows the problem's detail when the list cannot load, and retries", async () => {
    fakeApi({
      "GET /api/v1/sandboxes": [
        problem(503, "unavailable", "The database is not answering."),
        { body: { items: [failing], next_page_token: "" } },
      ],
      "GET /api/v1/providers": { body: { items: providers } },
    });
    const user = userEvent.setup();
    renderSignedIn(<SandboxesPage />);
    expect(await screen.findByRole("alert")).toHaveTextContent("The database is not answering.");
    await user.click(screen.getByRole("button", { name: "Retry" }));
    expect(await screen.findByRole("listitem", { name: "Team OpenSandbox" })).toBeInTheDocument();
  });

  it("is read-only for members", async () => {
    fakeApi({
      "GET /api/v1/sandboxes": { body: { items: [failing], next_page_token: "" } },
      "GET /api/v1/providers": { body: { items: providers } },
    });
    renderSignedIn(<SandboxesPage />, { me: { ...adminMe, role: "member" } });
    const row = await screen.findByRole("listitem", { name: "Team OpenSandbox" });
    expect(within(row).queryByRole("button")).toBeNull();
    expect(screen.queryByRole("button", { name: "Add sandbox" })).toBeNull();
  });
});
