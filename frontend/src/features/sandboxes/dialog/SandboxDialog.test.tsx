import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { fakeApi, problem } from "../../../test/fakeApi";
import { providers, renderSignedIn } from "../../../test/render";
import { SandboxDialog } from "./SandboxDialog";

// titled matches an accessible name holding a provider's title, its
// parentheses and dots taken as they are written.
const titled = (title: string) => new RegExp(title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));

const id = "0190aaaa-0000-7000-8000-000000000001";

/** Whether the catalogue says the provider cannot set resources.cpu. */
function cpuIsReadOnly(p: (typeof providers)[number]) {
  const cpu = p.config_schema.properties.resources.properties.cpu;
  return "readOnly" in cpu && cpu.readOnly === true;
}

function savedSandbox(provider: string, config: Record<string, unknown>) {
  return {
    id,
    name: "Team box",
    description: "",
    provider,
    url: provider === "local" ? "" : "http://sandbox.internal:8083",
    has_secret: true,
    config,
    health: { status: "unknown", checked_at: null, latency_ms: null, detail: "", history: [] },
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
  };
}

const openSandboxConfig = {
  default_image: "python:3.12-slim",
  volume_mounts: [],
  use_server_proxy: true,
  default_packages: [],
  timeout: 1800,
};

// These tests type into the whole form, which re-renders every field of the
// provider (its network and resources included) on each keystroke: on a
// busy machine that outlasts vitest's 5 s default. The bound only stops a
// hung test; nothing here measures speed.
const typingTest = { timeout: 30_000 };

describe("Add sandbox dialog", typingTest, () => {
  it("shows each of the server's field errors under its field, and the rest above the buttons", async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "POST /api/v1/sandboxes": problem(422, "validation_failed", "The request has invalid fields.", {
        errors: [
          { field: "url", message: "must not point at a cloud metadata service" },
          { field: "config.timeout", message: "must be at least 1" },
          { field: "config.volume_mounts.1", message: "host path /etc may not be mounted (it is inside /etc)" },
          { field: "labels", message: "is not something this form knows" },
        ],
      }),
    });
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);

    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await within(dialog).findByRole("textbox", { name: "Name" });
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Team box");
    await user.type(within(dialog).getByRole("textbox", { name: "Domain" }), "http://169.254.169.254");
    await user.type(within(dialog).getByRole("textbox", { name: "Volume mounts" }), "/srv/data:/data:ro\n/etc:/x");
    const timeout = within(dialog).getByRole("spinbutton", { name: "Timeout (seconds)" });
    await user.clear(timeout);
    await user.type(timeout, "0");
    await user.click(within(dialog).getByRole("button", { name: "Add sandbox" }));

    await waitFor(() => expect(timeout).toHaveAccessibleDescription(/must be at least 1/));
    expect(timeout).toHaveAttribute("aria-invalid", "true");
    expect(within(dialog).getByRole("textbox", { name: "Domain" })).toHaveAccessibleDescription(
      "must not point at a cloud metadata service",
    );
    expect(within(dialog).getByRole("textbox", { name: "Volume mounts" })).toHaveAccessibleDescription(
      /“\/etc:\/x”: host path \/etc may not be mounted/,
    );
    expect(within(dialog).getByText("labels: is not something this form knows")).toBeInTheDocument();
    // Beside Save, a summary links to each refused field that has one.
    expect(within(dialog).getByRole("alert", { name: "3 fields need a change before saving:" })).toBeInTheDocument();

    // What was sent is the form as shown: lists as lists, numbers as numbers.
    const [sent] = api.callsTo("POST", "/api/v1/sandboxes");
    expect(sent?.body).toMatchObject({
      name: "Team box",
      provider: "opensandbox",
      url: "http://169.254.169.254",
      config: { timeout: 0, volume_mounts: ["/srv/data:/data:ro", "/etc:/x"], default_image: "python:3.12-slim" },
    });
  });

  it("keeps Save disabled until the provider's required fields are filled", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await within(dialog).findByRole("textbox", { name: "Name" });
    const save = within(dialog).getByRole("button", { name: "Add sandbox" });

    await user.click(within(dialog).getByRole("radio", { name: /Daytona/ }));
    // Daytona's URL default comes from the catalogue; its API key is required.
    expect(within(dialog).getByRole("textbox", { name: "API URL" })).toHaveValue("https://app.daytona.io/api");
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Daytona");
    expect(save).toBeDisabled();
    await user.type(within(dialog).getByLabelText(/^API key/, { selector: "input" }), "dtn_secret_value");
    expect(save).toBeEnabled();

    await user.click(within(dialog).getByRole("radio", { name: /Local/ }));
    expect(within(dialog).queryByRole("textbox", { name: "API URL" })).toBeNull();
    expect(within(dialog).queryByLabelText(/^API key/, { selector: "input" })).toBeNull();
    const network = within(dialog).getByRole("group", { name: "Network" });
    expect(within(network).getByRole("combobox", { name: "By default" })).toHaveValue("deny");
    expect(save).toBeEnabled();
  });

  it("shows an object of the config as a fieldset of its fields, each error on its own input", async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "POST /api/v1/sandboxes": problem(422, "validation_failed", "The request has invalid fields.", {
        errors: [
          { field: "config.network.allow.1", message: "Local sandboxes cannot filter by wildcard domain; list each domain" },
          { field: "config.resources.memory_mb", message: "must be 0 or from 64 to 65536 on Local sandboxes" },
          { field: "config.network", message: "may name at most 2 domains" },
        ],
      }),
    });
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await within(dialog).findByRole("textbox", { name: "Name" });
    await user.click(within(dialog).getByRole("radio", { name: /Local/ }));
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Jail");

    const network = within(dialog).getByRole("group", { name: "Network" });
    const allow = within(network).getByRole("textbox", { name: "Allow" });
    await user.type(allow, "pypi.org\n*.pythonhosted.org");
    const resources = within(dialog).getByRole("group", { name: "Resources" });
    const memory = within(resources).getByRole("spinbutton", { name: "Memory (MiB)" });
    await user.clear(memory);
    await user.type(memory, "32");
    // Local sandboxes set CPU, up to the bound the catalogue gives.
    expect(within(resources).getByRole("spinbutton", { name: "CPU (cores)" })).toHaveAttribute("max", "64");
    await user.click(within(dialog).getByRole("button", { name: "Add sandbox" }));

    await waitFor(() => expect(allow).toHaveAccessibleDescription(/Line 2: Local sandboxes cannot filter by wildcard domain/));
    expect(memory).toHaveAccessibleDescription(/must be 0 or from 64 to 65536/);
    expect(within(network).getByRole("alert")).toHaveTextContent("may name at most 2 domains");
    const [sent] = api.callsTo("POST", "/api/v1/sandboxes");
    expect(sent?.body).toMatchObject({
      config: {
        network: { default: "deny", allow: ["pypi.org", "*.pythonhosted.org"], deny: [] },
        resources: { memory_mb: 32, disk_mb: 1024 },
      },
    });

    // Editing the input clears its own complaint, and only its own.
    await user.type(allow, "x");
    expect(allow).not.toHaveAccessibleDescription(/Line 2/);
    expect(memory).toHaveAccessibleDescription(/must be 0 or from 64 to 65536/);
  });

  it("shows the settings every provider shares in one section of their own, for each provider", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await within(dialog).findByRole("textbox", { name: "Name" });

    for (const p of providers.filter((p) => p.enabled)) {
      await user.click(within(dialog).getByRole("radio", { name: titled(p.title) }));
      const common = within(dialog).getByRole("group", { name: "Common settings" });
      expect(within(common).getByRole("spinbutton", { name: "Timeout (seconds)" })).toBeInTheDocument();
      expect(within(common).getByRole("textbox", { name: "Default packages" })).toBeInTheDocument();
      const own = within(dialog).getByRole("group", { name: `${p.title} settings` });
      expect(within(own).queryByRole("spinbutton", { name: "Timeout (seconds)" })).toBeNull();
      expect(within(own).queryByRole("textbox", { name: "Default packages" })).toBeNull();
      // A resource the provider cannot set is shown (in the Advanced fold), and takes nothing.
      const advanced = within(dialog).getByRole("group", { name: "Advanced settings" });
      const cpu = within(advanced).getByRole("spinbutton", { name: "CPU (cores)" });
      if (cpuIsReadOnly(p)) expect(cpu).toBeDisabled();
      else expect(cpu).toBeEnabled();
    }
    expect(providers.filter(cpuIsReadOnly).map((p) => p.name)).toEqual(["e2b", "cloudrun"]);
  });

  it("says beside each provider's description which shell runs its commands", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await within(dialog).findByRole("textbox", { name: "Name" });

    const card = (title: string) => within(dialog).getByRole("radio", { name: titled(title) }).closest("label");
    expect(card("Cloud Run")).toHaveTextContent("Commands run in bash.");
    expect(card("OpenSandbox")).toHaveTextContent("Commands run in bash, or sh where the image has no bash.");
    for (const p of providers) {
      expect(card(p.title)).toHaveTextContent(`Commands run in ${p.shell}.`);
    }
  });

  it("reports a failed connection test with its reason, inline", async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "POST /api/v1/sandboxes/probe": {
        body: { ok: false, latency_ms: 3, reason: "network", detail: "dial tcp 127.0.0.1:1: connect: connection refused" },
      },
    });
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await within(dialog).findByRole("textbox", { name: "Name" });
    await user.type(within(dialog).getByRole("textbox", { name: "Name" }), "Unreachable");
    await user.type(within(dialog).getByRole("textbox", { name: "Domain" }), "127.0.0.1:1");
    await user.click(within(dialog).getByRole("button", { name: "Test connection" }));
    expect(await within(dialog).findByText(/connection refused/)).toBeInTheDocument();
    expect(within(dialog).getByText("Network:")).toBeInTheDocument();
  });
});

describe("Add sandbox dialog, name taken", () => {
  it("puts the server's conflict under the Name field", async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "POST /api/v1/sandboxes": problem(409, "conflict", 'A sandbox named "Local" already exists in this workspace.', {
        existing_id: id,
      }),
    });
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} />);
    const dialog = await screen.findByRole("dialog", { name: "Add sandbox" });
    await user.click(await within(dialog).findByRole("radio", { name: /Local/ }));
    const name = within(dialog).getByRole("textbox", { name: "Name" });
    await user.type(name, "Local");
    await user.click(within(dialog).getByRole("button", { name: "Add sandbox" }));
    await waitFor(() => expect(name).toHaveAccessibleDescription('A sandbox named "Local" already exists in this workspace.'));
    expect(name).toHaveFocus();
  });
});

describe("Edit sandbox dialog", () => {
  it("leaves the secret empty with the saved last 4 as its placeholder, and patches only what changed", async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      [`GET /api/v1/sandboxes/${id}`]: { body: savedSandbox("opensandbox", openSandboxConfig), headers: { ETag: '"3"' } },
      [`GET /api/v1/sandboxes/${id}/secret-hint`]: { body: { is_set: true, last4: "x9Qz", length: 40 } },
      [`PATCH /api/v1/sandboxes/${id}`]: { body: savedSandbox("opensandbox", openSandboxConfig), headers: { ETag: '"4"' } },
    });
    const onOpenChange = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={onOpenChange} sandboxId={id} />);

    const dialog = await screen.findByRole("dialog", { name: "Edit sandbox" });
    const secret = await within(dialog).findByLabelText("API key", { selector: "input" });
    expect(secret).toHaveValue("");
    expect(secret).toHaveAttribute("placeholder", "••••••x9Qz — leave blank to keep");
    expect(secret).toHaveAccessibleDescription("Saved: ends in x9Qz · 40 characters.");
    // OpenSandbox works without a key, so the stored one may be cleared.
    expect(within(dialog).getByRole("button", { name: "Clear" })).toBeInTheDocument();
    // The provider cannot change: only its own shows, as a line, and no other provider's card.
    expect(within(dialog).queryAllByRole("radio")).toHaveLength(0);
    const own = providers.find((p) => p.name === "opensandbox")!.title;
    expect(within(dialog).getByText(own)).toBeInTheDocument();
    for (const other of providers.filter((p) => p.name !== "opensandbox")) {
      expect(within(dialog).queryByText(other.title)).toBeNull();
    }

    await user.type(within(dialog).getByRole("textbox", { name: "Description" }), "Shared by the team");
    await user.click(within(dialog).getByRole("button", { name: "Save changes" }));

    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    const [sent] = api.callsTo("PATCH", `/api/v1/sandboxes/${id}`);
    expect(sent?.body).toEqual({ description: "Shared by the team" });
    expect(sent?.headers.get("If-Match")).toBe('"3"');
  });

  it('says "Saved" when the secret is too short to show, and offers no Clear where a secret is required', async () => {
    fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      [`GET /api/v1/sandboxes/${id}`]: {
        body: savedSandbox("daytona", { target: "us", snapshot: "", auto_stop_interval: 15, default_packages: [], timeout: 1800 }),
        headers: { ETag: '"1"' },
      },
      [`GET /api/v1/sandboxes/${id}/secret-hint`]: { body: { is_set: true, last4: null, length: 8 } },
    });
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} sandboxId={id} />);
    const dialog = await screen.findByRole("dialog", { name: "Edit sandbox" });
    const secret = await within(dialog).findByLabelText("API key", { selector: "input" });
    expect(secret).toHaveAttribute("placeholder", "Saved — leave blank to keep");
    expect(secret).toHaveAccessibleDescription("Saved: 8 characters.");
    expect(within(dialog).queryByRole("button", { name: "Clear" })).toBeNull();
    // A stored secret satisfies the requirement: Save is possible without retyping it.
    expect(within(dialog).getByRole("button", { name: "Save changes" })).toBeEnabled();
  });

  it("sends null to clear a secret the provider does not need", async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      [`GET /api/v1/sandboxes/${id}`]: { body: savedSandbox("opensandbox", openSandboxConfig), headers: { ETag: '"7"' } },
      [`GET /api/v1/sandboxes/${id}/secret-hint`]: { body: { is_set: true, last4: "abcd", length: 12 } },
      [`PATCH /api/v1/sandboxes/${id}`]: { body: savedSandbox("opensandbox", openSandboxConfig) },
    });
    const user = userEvent.setup();
    renderSignedIn(<SandboxDialog open onOpenChange={() => {}} sandboxId={id} />);
    const dialog = await screen.findByRole("dialog", { name: "Edit sandbox" });
    await user.click(await within(dialog).findByRole("button", { name: "Clear" }));
    await user.click(within(dialog).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(api.callsTo("PATCH", `/api/v1/sandboxes/${id}`)).toHaveLength(1));
    expect(api.callsTo("PATCH", `/api/v1/sandboxes/${id}`)[0]?.body).toEqual({ secret: null });
  });
});
