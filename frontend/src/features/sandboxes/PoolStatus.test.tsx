import { screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Sandbox, SandboxPool } from "../../api/types";
import { fakeApi } from "../../test/fakeApi";
import { renderSignedIn } from "../../test/render";
import { SandboxPoolStatus } from "./PoolStatus";

type LocalSandbox = Extract<Sandbox, { provider: "local" }>;

// A local sandbox whose config holds just the keys a test sets.
const sandbox = (config: Record<string, unknown>): Sandbox => ({
  id: "s1",
  name: "Pooled",
  description: "",
  provider: "local",
  url: "",
  has_secret: false,
  config: config as LocalSandbox["config"],
  health: { status: "ok", checked_at: null, latency_ms: null, detail: "", history: [] },
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
  managed_by: "",
});

const withPool = (pool: SandboxPool) => ({ body: { ...sandbox({ pool: { size: pool.size } }), pool } });

describe("A sandbox's warm pool", () => {
  it("shows how many instances are ready and how many are on their way", async () => {
    fakeApi({
      "GET /api/v1/sandboxes/s1": withPool({ state: "creating", size: 3, ready: 1, creating: 2, failures: 0, detail: "", retry_at: null }),
    });
    renderSignedIn(<SandboxPoolStatus sandbox={sandbox({ pool: { size: 3, max_idle_minutes: 60 } })} />);
    expect(await screen.findByText("pool creating")).toBeInTheDocument();
    expect(screen.getByText("1/3 ready · 2 creating")).toBeInTheDocument();
  });

  it("shows a short pool with nothing on its way as waiting, not creating", async () => {
    fakeApi({
      "GET /api/v1/sandboxes/s1": withPool({ state: "waiting", size: 2, ready: 0, creating: 0, failures: 0, detail: "", retry_at: null }),
    });
    renderSignedIn(<SandboxPoolStatus sandbox={sandbox({ pool: { size: 2 } })} />);
    expect(await screen.findByText("pool waiting")).toBeInTheDocument();
    expect(screen.getByText("0/2 ready")).toBeInTheDocument();
    expect(screen.queryByText(/creating/)).not.toBeInTheDocument();
  });

  it("says why a failing pool fails and how often it failed", async () => {
    const detail = "2 create(s) in a row failed, the last with: quota exceeded";
    fakeApi({
      "GET /api/v1/sandboxes/s1": withPool({
        state: "failing", size: 2, ready: 0, creating: 0, failures: 2, detail, retry_at: "2026-01-01T00:10:00Z",
      }),
    });
    renderSignedIn(<SandboxPoolStatus sandbox={sandbox({ pool: { size: 2 } })} />);
    expect(await screen.findByLabelText(`Warm pool failing: ${detail}`)).toBeInTheDocument();
    expect(screen.getByText(/0\/2 ready · 2 failed in a row · tries again at/)).toBeInTheDocument();
  });

  it("shows a stopped pool as such", async () => {
    fakeApi({
      "GET /api/v1/sandboxes/s1": withPool({
        state: "stopped", size: 1, ready: 0, creating: 0, failures: 5, detail: "Stopped after 5 creates in a row failed", retry_at: null,
      }),
    });
    renderSignedIn(<SandboxPoolStatus sandbox={sandbox({ pool: { size: 1 } })} />);
    expect(await screen.findByText("pool stopped")).toBeInTheDocument();
    expect(screen.getByText("0/1 ready · 5 failed in a row")).toBeInTheDocument();
  });

  it("asks nothing for a sandbox without a pool", async () => {
    const api = fakeApi({});
    const { container } = renderSignedIn(<SandboxPoolStatus sandbox={sandbox({ pool: { size: 0 } })} />);
    await waitFor(() => expect(container).toBeEmptyDOMElement());
    expect(api.callsTo("GET", "/api/v1/sandboxes/s1")).toHaveLength(0);
  });
});
